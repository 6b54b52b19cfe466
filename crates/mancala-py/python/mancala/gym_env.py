"""Gymnasium environments: :class:`MancalaEnv`, one agent plays a seat of any game against a
computer level or a callable opponent; :class:`SelfPlayEnv`, the agent plays both seats (the
single environment of :class:`mancala.vector_env.MancalaVectorEnv`, which steps many of them
in Rust).

The observation is :meth:`mancala.Game.observation` from the agent's seat (layout in the
package docstring); the action is an own pit, 0-based from the agent's left. ``info`` carries
``action_mask`` (int8, one entry a pit) for masked policies. An illegal action ends the
episode with ``illegal_reward``. The reward comes when the game ends: ``"win"`` gives +1, -1
or 0, ``"margin"`` the agent's final seed margin (negated in a misère game, so that higher is
always better).
"""

from typing import Any, Callable, Dict, Optional, Tuple, Union

import gymnasium
import numpy as np
from gymnasium import spaces

from ._mancala import Game, Level
from ._adapters import as_pit, refuse_pie

Opponent = Union[int, str, Callable[[Game], int]]


class MancalaEnv(gymnasium.Env):
    """``MancalaEnv(rules="kalah", opponent=3, seat="south")``.

    ``opponent``: a level 1-8, ``"random"``, or a callable given the :class:`~mancala.Game`
    (its mover is the opponent) that returns a pit. ``seat``: ``"south"`` (moves first),
    ``"north"`` or ``"random"`` (drawn at every reset).
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(
        self,
        rules: str = "kalah",
        opponent: Opponent = 3,
        seat: str = "south",
        reward: str = "win",
        illegal_reward: float = -1.0,
        render_mode: Optional[str] = None,
    ) -> None:
        if seat not in ("south", "north", "random"):
            raise ValueError(f"seat {seat!r}: give 'south', 'north' or 'random'")
        if reward not in ("win", "margin"):
            raise ValueError(f"reward {reward!r}: give 'win' or 'margin'")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode {render_mode!r}: only 'ansi'")
        self.rules = rules
        self.seat_choice = seat
        self.reward_kind = reward
        self.illegal_reward = float(illegal_reward)
        self.render_mode = render_mode
        if isinstance(opponent, int) and not isinstance(opponent, bool):
            self._level: Optional[Level] = Level(opponent)
            self._opponent: Optional[Callable[[Game], int]] = None
        elif opponent == "random":
            self._level, self._opponent = None, None
        elif callable(opponent):
            self._level, self._opponent = None, opponent
        else:
            raise ValueError("opponent: give a level 1-8, 'random' or a callable")
        self.game = Game(rules)
        refuse_pie(self.game, "MancalaEnv")
        # Whether the episode has ended: the game is over, or an illegal action ended it.
        self._ended = False
        total = self.game.total_seeds
        self.observation_space = spaces.Box(
            0.0, float(total), shape=(self.game.observation_size,), dtype=np.float32
        )
        self.action_space = spaces.Discrete(self.game.pits)
        self.seat = "south" if seat == "random" else seat

    def _obs(self) -> np.ndarray:
        return self.game.observation(self.seat)

    def _info(self) -> Dict[str, Any]:
        mask = self.game.legal_mask() if self.game.to_move == self.seat else None
        if mask is None or self.game.is_over:
            mask = np.zeros(self.game.pits, dtype=bool)
        return {"action_mask": mask.astype(np.int8), "position": self.game.position}

    def _final_reward(self) -> float:
        return self.game.reward(self.seat, self.reward_kind)

    def _opponent_moves(self) -> None:
        while not self.game.is_over and self.game.to_move != self.seat:
            if self._level is not None:
                pit = self._level.choose(self.game, seed=int(self.np_random.integers(2**63)))
            elif self._opponent is not None:
                pit = int(self._opponent(self.game))
            else:
                pit = int(self.np_random.choice(self.game.legal_moves()))
            self.game.play(pit)

    def reset(
        self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None
    ) -> Tuple[np.ndarray, Dict[str, Any]]:
        super().reset(seed=seed)
        self.game = Game(self.rules)
        self._ended = False
        if self.seat_choice == "random":
            self.seat = "south" if self.np_random.integers(2) == 0 else "north"
        self._opponent_moves()
        return self._obs(), self._info()

    def step(self, action: int) -> Tuple[np.ndarray, float, bool, bool, Dict[str, Any]]:
        if self._ended or self.game.is_over:
            raise RuntimeError("the episode is over: call reset()")
        pit = as_pit(action, self.game.pits)
        if pit not in self.game.legal_moves():
            self._ended = True
            info = self._info()
            info["illegal"] = True
            return self._obs(), self.illegal_reward, True, False, info
        self.game.play(pit)
        self._opponent_moves()
        done = self._ended = self.game.is_over
        reward = self._final_reward() if done else 0.0
        return self._obs(), reward, done, False, self._info()

    def render(self) -> Optional[str]:
        if self.render_mode == "ansi":
            s = self.game.scores
            return f"{self.game.position}  (South {s[0]}, North {s[1]})"
        return None


def _side_index(side: str) -> int:
    return 0 if side == "south" else 1


class SelfPlayEnv(gymnasium.Env):
    """``SelfPlayEnv(rules="kalah", reward="win")``: one game, both seats played by the agent.

    The observation is :meth:`mancala.Game.observation` from the side to move, so a policy
    always sees its own row first; ``info["to_move"]`` says who that is (0 South, 1 North:
    after an extra turn the same player moves again). The reward is for the player who made
    the move (0 until the game ends), ``"win"`` or ``"margin"`` as for :class:`MancalaEnv`.
    When a move ends the game, the observation is the finished position as that player sees
    it, and ``info["action_mask"]`` is all zeros (no move is legal) with no ``"to_move"``. An
    illegal action raises ``ValueError`` and changes nothing, as :class:`mancala.VecGame`
    does: choose from ``info["action_mask"]``.
    """

    metadata = {"render_modes": ["ansi"], "render_fps": 4}

    def __init__(
        self, rules: str = "kalah", reward: str = "win", render_mode: Optional[str] = None
    ) -> None:
        if reward not in ("win", "margin"):
            raise ValueError(f"reward {reward!r}: give 'win' or 'margin'")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode {render_mode!r}: only 'ansi'")
        self.rules = rules
        self.reward_kind = reward
        self.render_mode = render_mode
        self.game = Game(rules)
        refuse_pie(self.game, "SelfPlayEnv")
        self.observation_space = spaces.Box(
            0.0, float(self.game.total_seeds), shape=(self.game.observation_size,), dtype=np.float32
        )
        self.action_space = spaces.Discrete(self.game.pits)

    def _info(self) -> Dict[str, Any]:
        if self.game.is_over:
            return {"action_mask": np.zeros(self.game.pits, dtype=np.int8)}
        return {
            "action_mask": self.game.legal_mask().astype(np.int8),
            "to_move": _side_index(self.game.to_move),
        }

    def reset(
        self, *, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None
    ) -> Tuple[np.ndarray, Dict[str, Any]]:
        super().reset(seed=seed)
        self.game = Game(self.rules)
        return self.game.observation(), self._info()

    def step(self, action: int) -> Tuple[np.ndarray, float, bool, bool, Dict[str, Any]]:
        if self.game.is_over:
            raise RuntimeError("the episode is over: call reset()")
        pit = as_pit(action, self.game.pits)
        if pit not in self.game.legal_moves():
            raise ValueError(f"action {pit}: not a legal move (legal: {self.game.legal_moves()})")
        mover = self.game.to_move
        self.game.play(pit)
        if self.game.is_over:
            reward = self.game.reward(mover, self.reward_kind)
            return self.game.observation(mover), reward, True, False, self._info()
        return self.game.observation(), 0.0, False, False, self._info()

    def render(self) -> Optional[str]:
        if self.render_mode == "ansi":
            s = self.game.scores
            return f"{self.game.position}  (South {s[0]}, North {s[1]})"
        return None


# `gymnasium.make("mancala/Mancala-v0", rules="kauri", opponent=5)` once this module is imported.
gymnasium.register(id="mancala/Mancala-v0", entry_point="mancala.gym_env:MancalaEnv")
# `gymnasium.make_vec("mancala/SelfPlay-v0", num_envs=1024, vectorization_mode="vector_entry_point")`
# steps the games in Rust (mancala.vector_env); "sync" or "async" make Gymnasium's own vector
# environments of `SelfPlayEnv`, which step the same games one by one.
gymnasium.register(
    id="mancala/SelfPlay-v0",
    entry_point="mancala.gym_env:SelfPlayEnv",
    vector_entry_point="mancala.vector_env:MancalaVectorEnv",
)
