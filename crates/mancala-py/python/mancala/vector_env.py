"""A Gymnasium vector environment of self-play games stepped together in Rust.

:class:`MancalaVectorEnv` is ``num_envs`` copies of :class:`mancala.gym_env.SelfPlayEnv` on one
:class:`mancala.VecGame`: every step moves all the games in one call, with no Python loop over
the games. ``gymnasium.make_vec("mancala/SelfPlay-v0", num_envs=n,
vectorization_mode="vector_entry_point")`` makes one (after ``import mancala.gym_env``).

Autoreset: Gymnasium 1.x's default, ``AutoresetMode.NEXT_STEP`` (``metadata["autoreset_mode"]``).
The step that ends a game returns its final observation (the finished position as the player
who made the last move sees it), its reward and ``terminated``; the next step starts that game
again, ignores its action and returns the new game's observation with reward 0. With
``autoreset_mode="SameStep"`` the step that ends a game returns the new game's observation and
puts the final one in ``infos["final_obs"]`` (an object array, ``None`` for the other games) and
``infos["final_info"]``, as Gymnasium's ``SyncVectorEnv`` does. No game is ever truncated.

Infos (each key with its ``_key`` mask, as Gymnasium's vector environments give them):
``"action_mask"`` (int8, ``(num_envs, pits)``; all zeros for a finished game) and ``"to_move"``
(0 South, 1 North; absent for a finished game).
"""

from typing import Any, Dict, Optional, Tuple, Union

import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

from ._mancala import Game, VecGame


class MancalaVectorEnv(VectorEnv):
    """``MancalaVectorEnv(num_envs=1, rules="kalah", reward="win", opening=0,
    autoreset_mode="NextStep", parallel=None)``.

    ``opening``: each game starts after up to that many random plies (drawn from the batch's
    generators, so they differ from what the same seed gives ``SelfPlayEnv``, which has no
    opening). ``parallel``: as :class:`mancala.VecGame`'s. The games are ``self.games``, a
    :class:`mancala.VecGame` (positions, states, final scores).
    """

    metadata: Dict[str, Any] = {"autoreset_mode": AutoresetMode.NEXT_STEP, "render_modes": []}

    def __init__(
        self,
        num_envs: int = 1,
        rules: str = "kalah",
        reward: str = "win",
        opening: int = 0,
        autoreset_mode: Union[str, AutoresetMode] = AutoresetMode.NEXT_STEP,
        parallel: Optional[bool] = None,
    ) -> None:
        mode = AutoresetMode(autoreset_mode)
        if mode not in (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP):
            raise ValueError(f"autoreset_mode {mode.value!r}: give 'NextStep' or 'SameStep'")
        if reward not in ("win", "margin"):
            raise ValueError(f"reward {reward!r}: give 'win' or 'margin'")
        self.games = VecGame(rules, n=num_envs, reward=reward, opening=opening, parallel=parallel)
        self.num_envs = num_envs
        self.autoreset_mode = mode
        self.metadata = {**type(self).metadata, "autoreset_mode": mode}
        self.render_mode = None
        total = Game(rules).total_seeds
        size, pits = self.games.observation_size, self.games.pits
        self.single_observation_space = spaces.Box(
            0.0, float(total), shape=(size,), dtype=np.float32
        )
        self.single_action_space = spaces.Discrete(pits)
        self.observation_space = batch_space(self.single_observation_space, num_envs)
        self.action_space = batch_space(self.single_action_space, num_envs)
        # Each finished game's final observation, written by the step that ends it.
        self._finals = np.zeros((num_envs, size), dtype=np.float32)
        # The games that ended at the last step (NextStep: started again at this one).
        self._ended = np.zeros(num_envs, dtype=bool)

    def reset(
        self,
        *,
        seed: Optional[int] = None,
        options: Optional[Dict[str, Any]] = None,
    ) -> Tuple[np.ndarray, Dict[str, Any]]:
        """Starts every game again; ``seed`` (one int) seeds every game's generator (game
        ``i``'s from ``seed`` and ``i``), else they go on. No options are taken."""
        if options:
            raise ValueError(f"options {options!r}: MancalaVectorEnv takes none")
        if seed is not None and not isinstance(seed, (int, np.integer)):
            raise ValueError(
                "seed: give one int (each game's generator is drawn from it and the game's index)"
            )
        super().reset(seed=None if seed is None else int(seed))
        obs, masks = self.games.reset(seed=None if seed is None else int(seed))
        self._ended[:] = False
        return obs, self._infos(masks, self._ended)

    def _infos(self, masks: np.ndarray, ended: np.ndarray) -> Dict[str, Any]:
        live = ~ended
        mask = masks.astype(np.int8)
        mask[ended] = 0
        to_move = self.games.to_move().astype(np.int64)
        to_move[ended] = 0
        return {
            "action_mask": mask,
            "_action_mask": np.ones(self.num_envs, dtype=bool),
            "to_move": to_move,
            "_to_move": live,
        }

    def step(
        self, actions: Any
    ) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, Dict[str, Any]]:
        """Plays ``actions[i]`` (own pit) in every live game; ``ValueError`` for an illegal
        action of a game that moves (no game moves then)."""
        actions = np.asarray(actions)
        if actions.shape != (self.num_envs,):
            raise ValueError(
                f"actions: shape {actions.shape}, not ({self.num_envs},) (one own pit a game)"
            )
        if self.autoreset_mode == AutoresetMode.NEXT_STEP:
            # The games that ended at the last step started again in it (in Rust): they do
            # not move now, and show the new game.
            active = ~self._ended if self._ended.any() else None
            obs, rewards, dones, masks = self.games.step(
                actions, active=active, final_observations=self._finals
            )
            obs[dones] = self._finals[dones]
            self._ended = dones.copy()
            infos = self._infos(masks, dones)
        else:
            obs, rewards, dones, masks = self.games.step(actions, final_observations=self._finals)
            infos = self._infos(masks, np.zeros(self.num_envs, dtype=bool))
            if dones.any():
                final_obs = np.full(self.num_envs, None, dtype=object)
                for i in np.flatnonzero(dones):
                    final_obs[i] = self._finals[i].copy()
                infos["final_obs"] = final_obs
                infos["_final_obs"] = dones.copy()
                infos["final_info"] = {
                    "action_mask": np.zeros((self.num_envs, self.games.pits), dtype=np.int8),
                    "_action_mask": dones.copy(),
                }
                infos["_final_info"] = dones.copy()
        truncations = np.zeros(self.num_envs, dtype=bool)
        return obs, rewards.astype(np.float64), dones, truncations, infos

    def __repr__(self) -> str:
        return (
            f"MancalaVectorEnv({self.games.rules!r}, num_envs={self.num_envs}, "
            f"autoreset_mode={self.autoreset_mode.value!r})"
        )
