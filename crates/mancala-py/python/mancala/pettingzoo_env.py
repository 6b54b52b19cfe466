"""A PettingZoo AEC environment: two agents, ``"south"`` (moves first) and ``"north"``, take
turns as the rules say (an extra turn keeps the same agent selected).

Each agent observes ``{"observation": Game.observation(agent), "action_mask": int8 mask}``
(the mask is all zeros when it is not the agent's move). Rewards come when the game ends
(``"win"``: +1/-1/0; ``"margin"``: the final seed margin, higher better). An illegal action
ends the game: the agent that made it gets ``illegal_reward``, the other its negation.
"""

from typing import Any, Dict, Optional

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv

from ._mancala import Game
from ._adapters import as_pit, refuse_pie


class MancalaAEC(AECEnv):
    """``MancalaAEC(rules="kalah", reward="win")``."""

    metadata = {"render_modes": ["ansi"], "name": "mancala_v0", "is_parallelizable": False}

    def __init__(
        self,
        rules: str = "kalah",
        reward: str = "win",
        illegal_reward: float = -1.0,
        render_mode: Optional[str] = None,
    ) -> None:
        super().__init__()
        if reward not in ("win", "margin"):
            raise ValueError(f"reward {reward!r}: give 'win' or 'margin'")
        if render_mode not in (None, "ansi"):
            raise ValueError(f"render_mode {render_mode!r}: only 'ansi'")
        self.rules = rules
        self.reward_kind = reward
        self.illegal_reward = float(illegal_reward)
        self.render_mode = render_mode
        self.game = Game(rules)
        refuse_pie(self.game, "the PettingZoo environment")
        self.possible_agents = ["south", "north"]
        self.agents = self.possible_agents[:]
        m, total = self.game.pits, self.game.total_seeds
        obs = spaces.Dict(
            {
                "observation": spaces.Box(
                    0.0, float(total), shape=(self.game.observation_size,), dtype=np.float32
                ),
                "action_mask": spaces.Box(0, 1, shape=(m,), dtype=np.int8),
            }
        )
        self.observation_spaces = {a: obs for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(m) for a in self.possible_agents}

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def observe(self, agent: str) -> Dict[str, np.ndarray]:
        if self.game.is_over or self.game.to_move != agent:
            mask = np.zeros(self.game.pits, dtype=np.int8)
        else:
            mask = self.game.legal_mask().astype(np.int8)
        return {"observation": self.game.observation(agent), "action_mask": mask}

    def reset(self, seed: Optional[int] = None, options: Optional[Dict[str, Any]] = None) -> None:
        self.game = Game(self.rules)
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: Dict[str, Dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.game.to_move

    def step(self, action: Optional[int]) -> None:
        if not self.agents:
            raise RuntimeError("the game is over and every agent is done: call reset()")
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        self._cumulative_rewards[agent] = 0.0
        other = "north" if agent == "south" else "south"
        self.rewards = {a: 0.0 for a in self.agents}
        pit = None if action is None else as_pit(action, self.game.pits)
        if pit is None or pit not in self.game.legal_moves():
            self.rewards[agent] = self.illegal_reward
            self.rewards[other] = -self.illegal_reward
            self.infos[agent] = {"illegal": True}
            self.terminations = {a: True for a in self.agents}
        else:
            self.game.play(pit)
            if self.game.is_over:
                for a in self.agents:
                    self.rewards[a] = self.game.reward(a, self.reward_kind)
                self.terminations = {a: True for a in self.agents}
            else:
                self.agent_selection = self.game.to_move
        self._accumulate_rewards()
        if self.render_mode == "ansi":
            print(self.render())

    def render(self) -> Optional[str]:
        if self.render_mode is None:
            return None
        s = self.game.scores
        return f"{self.game.position}  (South {s[0]}, North {s[1]})"

    def close(self) -> None:
        pass


def env(**kwargs: Any) -> MancalaAEC:
    """The AEC environment (PettingZoo's ``env()`` convention)."""
    return MancalaAEC(**kwargs)
