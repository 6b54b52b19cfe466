"""A Stable-Baselines3 ``VecEnv`` of self-play games stepped together in Rust.

:class:`MancalaVecEnv` follows Stable-Baselines3's vector environment contract: ``reset()``
returns the observations alone, ``step_async(actions)`` then ``step_wait()`` return
``(observations, rewards, dones, infos)`` with ``infos`` a list of one dict a game, and a game
that ends is started again in the same step: its observation is the new game's, and
``infos[i]["terminal_observation"]`` holds the finished position as the player who made the last
move sees it (``infos[i]["TimeLimit.truncated"]`` is False: no game is cut short). The games are
those of :class:`mancala.gym_env.SelfPlayEnv` (the observation from the side to move, the reward
for the player who moved).

Where ``stable_baselines3`` is installed the class derives from its ``VecEnv`` (so its
``isinstance`` checks and wrappers such as ``VecMonitor`` take it); the package does not need it.
``env_method("action_masks")`` gives each game's legal moves, which sb3-contrib's
``MaskablePPO`` asks for.
"""

from typing import Any, Iterable, List, Optional, Sequence, Union

import numpy as np
from gymnasium import spaces

from ._mancala import Game, VecGame

try:  # pragma: no cover - depends on what is installed
    from stable_baselines3.common.vec_env import VecEnv as _Base
except ImportError:  # pragma: no cover
    _Base = object  # type: ignore[assignment,misc]

Indices = Union[None, int, Iterable[int]]


class MancalaVecEnv(_Base):  # type: ignore[misc,valid-type]
    """``MancalaVecEnv(num_envs=1, rules="kalah", reward="win", opening=0, seed=None,
    parallel=None)``: ``num_envs`` self-play games of ``rules`` in one :class:`mancala.VecGame`
    (``self.games``). ``seed`` seeds the games' generators at the first ``reset()``."""

    def __init__(
        self,
        num_envs: int = 1,
        rules: str = "kalah",
        reward: str = "win",
        opening: int = 0,
        seed: Optional[int] = None,
        parallel: Optional[bool] = None,
    ) -> None:
        self.games = VecGame(rules, n=num_envs, reward=reward, opening=opening, parallel=parallel)
        total = Game(rules).total_seeds
        size, pits = self.games.observation_size, self.games.pits
        observation_space = spaces.Box(0.0, float(total), shape=(size,), dtype=np.float32)
        action_space = spaces.Discrete(pits)
        self._finals = np.zeros((num_envs, size), dtype=np.float32)
        self._masks = np.zeros((num_envs, pits), dtype=bool)
        self._actions: Optional[np.ndarray] = None
        self._seed = seed
        if _Base is object:
            self.num_envs = num_envs
            self.observation_space = observation_space
            self.action_space = action_space
            self.render_mode = None
            self.reset_infos: List[dict] = [{} for _ in range(num_envs)]
        else:  # pragma: no cover - with stable_baselines3 installed
            super().__init__(num_envs, observation_space, action_space)

    def seed(self, seed: Optional[int] = None) -> List[Optional[int]]:
        """Seeds every game's generator at the next ``reset()`` (game ``i``'s from ``seed`` and
        ``i``); returns ``seed`` for each game."""
        self._seed = seed
        return [seed] * self.num_envs

    def reset(self) -> np.ndarray:
        obs, self._masks = self.games.reset(seed=self._seed)
        self._seed = None
        self.reset_infos = [{} for _ in range(self.num_envs)]
        return obs

    def step_async(self, actions: np.ndarray) -> None:
        self._actions = np.asarray(actions)

    def step_wait(self):  # type: ignore[no-untyped-def]
        if self._actions is None:
            raise RuntimeError("step_wait() without step_async(actions)")
        actions, self._actions = self._actions, None
        obs, rewards, dones, self._masks = self.games.step(
            actions.reshape(-1), final_observations=self._finals
        )
        infos: List[dict] = [{} for _ in range(self.num_envs)]
        for i in np.flatnonzero(dones):
            infos[i]["terminal_observation"] = self._finals[i].copy()
            infos[i]["TimeLimit.truncated"] = False
        return obs, rewards, dones, infos

    def step(self, actions: np.ndarray):  # type: ignore[no-untyped-def]
        self.step_async(actions)
        return self.step_wait()

    def close(self) -> None:
        pass

    def _indices(self, indices: Indices) -> Sequence[int]:
        if indices is None:
            return range(self.num_envs)
        if isinstance(indices, (int, np.integer)):
            return [int(indices)]
        return list(indices)

    def get_attr(self, attr_name: str, indices: Indices = None) -> List[Any]:
        """A setting of the games (``render_mode``, ``rules``, ``pits``,
        ``observation_size``), once for each game named; ``AttributeError`` for others."""
        values = {
            "render_mode": None,
            "rules": self.games.rules,
            "pits": self.games.pits,
            "observation_size": self.games.observation_size,
        }
        if attr_name not in values:
            raise AttributeError(f"{attr_name!r}: the games have {sorted(values)}")
        return [values[attr_name] for _ in self._indices(indices)]

    def set_attr(self, attr_name: str, value: Any, indices: Indices = None) -> None:
        raise AttributeError(
            f"{attr_name!r}: the games of a batch share their settings; make a new MancalaVecEnv"
        )

    def env_method(
        self, method_name: str, *method_args: Any, indices: Indices = None, **method_kwargs: Any
    ) -> List[Any]:
        """``"action_masks"``: each named game's legal moves (bool, one a pit); no other
        method (``AttributeError``)."""
        if method_name != "action_masks":
            raise AttributeError(f"{method_name!r}: the games have only 'action_masks'")
        return [self._masks[i].copy() for i in self._indices(indices)]

    def action_masks(self) -> np.ndarray:
        """Every game's legal moves: bool, ``(num_envs, pits)``."""
        return self._masks.copy()

    def env_is_wrapped(self, wrapper_class: type, indices: Indices = None) -> List[bool]:
        return [False for _ in self._indices(indices)]

    def get_images(self) -> Sequence[Optional[np.ndarray]]:
        return [None for _ in range(self.num_envs)]

    def render(self, mode: Optional[str] = None) -> Optional[np.ndarray]:
        return None
