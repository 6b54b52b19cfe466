"""An OpenSpiel game: ``python_mancala``, any rules string as its ``rules`` parameter.

Importing this module registers the game with ``pyspiel.register_game`` (OpenSpiel must be
installed): ``pyspiel.load_game("python_mancala", {"rules": "kauri"})``. OpenSpiel's game
strings cannot hold ``,`` or ``=`` in a value, so the parameter writes a rules string with
``;`` and ``:`` instead (``python_mancala(rules=kalah;seeds:4)``); a rules string with ``,``
and ``=`` is taken too. Without ``rules`` the game is ``kalah,seeds=4`` (Kalah(6,4), the game
of OpenSpiel's own ``mancala``), stated in the game string; ``rules=kalah`` means what
``kalah`` means everywhere in this package, Kalah(6,3). Actions are own pits,
0-based from the mover's left; players 0 (South, moves first) and 1 (North); returns +1/-1/0
(misère and Kauri's cowrie rule decide, as the game's outcome does). The observation tensor is
:meth:`mancala.Game.observation` from the observing player's seat.

:data:`OPENSPIEL_RULES` gives, for each of OpenSpiel's own games that this package plays, the
rules string that plays it exactly (the same legal moves, ends and final stores, checked in
lockstep): ``mancala`` is ``kalah,seeds=4``; ``oware`` is
``oware,decided-leftovers=to-owner`` (OpenSpiel gives each row's seeds to its owner when a
store passes 24; this package's ``oware`` leaves them to nobody, which changes margins, never
the winner). ``pyspiel.load_game("python_mancala", {"rules": OPENSPIEL_RULES["oware"]})``.
"""

from typing import Any, Dict, List, Optional

import numpy as np
import pyspiel

from ._mancala import Game
from ._adapters import refuse_pie

# The default rules, written out: Kalah(6,4), the game of OpenSpiel's own `mancala`. `kalah`
# alone is Kalah(6,3) here as everywhere in this package.
DEFAULT_RULES = "kalah;seeds:4"
# The rules strings that play OpenSpiel's own games exactly, by OpenSpiel's name.
OPENSPIEL_RULES = {
    "mancala": "kalah,seeds=4",
    "oware": "oware,decided-leftovers=to-owner",
}
# Games whose positions repeat end by the repetition rule; random games of every preset stay
# far below this bound.
MAX_GAME_LENGTH = 10_000
_SIDES = ("south", "north")

_GAME_TYPE = pyspiel.GameType(
    short_name="python_mancala",
    long_name="Mancala (Kalah family, every preset and option)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.DETERMINISTIC,
    information=pyspiel.GameType.Information.PERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.ZERO_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=2,
    min_num_players=2,
    provides_information_state_string=True,
    provides_information_state_tensor=False,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"rules": DEFAULT_RULES},
)


def _encode(rules: str) -> str:
    """A rules string as OpenSpiel's game strings can hold it."""
    return rules.replace(",", ";").replace("=", ":")


def _decode(param: str) -> str:
    """The rules string of a ``rules`` parameter."""
    return param.replace(";", ",").replace(":", "=")


class MancalaGame(pyspiel.Game):
    """The game of the ``rules`` parameter."""

    def __init__(self, params: Optional[Dict[str, Any]] = None) -> None:
        params = dict(params or {})
        self.rules = _decode(str(params.get("rules", DEFAULT_RULES)))
        probe = Game(self.rules)
        refuse_pie(probe, "python_mancala")
        info = pyspiel.GameInfo(
            num_distinct_actions=probe.pits,
            max_chance_outcomes=0,
            num_players=2,
            min_utility=-1.0,
            max_utility=1.0,
            utility_sum=0.0,
            max_game_length=MAX_GAME_LENGTH,
        )
        super().__init__(_GAME_TYPE, info, {"rules": _encode(probe.rules)})
        self.observation_size = probe.observation_size

    def new_initial_state(self) -> "MancalaState":
        return MancalaState(self)

    def make_py_observer(self, iig_obs_type=None, params=None) -> "MancalaObserver":
        return MancalaObserver(self, params)


class MancalaState(pyspiel.State):
    """A position with the moves that led to it (the repetition rule reads them)."""

    def __init__(self, game: MancalaGame) -> None:
        super().__init__(game)
        self.game = Game(game.rules)

    def current_player(self) -> int:
        if self.game.is_over:
            return pyspiel.PlayerId.TERMINAL
        return 0 if self.game.to_move == "south" else 1

    def _legal_actions(self, player: int) -> List[int]:
        return self.game.legal_moves()

    def _apply_action(self, action: int) -> None:
        self.game.play(int(action))

    def _action_to_string(self, player: int, action: int) -> str:
        return f"{_SIDES[player]} pit {int(action) + 1}"

    def is_terminal(self) -> bool:
        return self.game.is_over

    def returns(self) -> List[float]:
        return [self.game.reward("south"), self.game.reward("north")]

    def __str__(self) -> str:
        return self.game.position


class MancalaObserver:
    """The observation tensor (:meth:`mancala.Game.observation` from the player's seat)."""

    def __init__(self, game: MancalaGame, params: Optional[Dict[str, Any]]) -> None:
        if params:
            raise ValueError(f"observation parameters not supported; passed {params}")
        self.tensor = np.zeros(game.observation_size, np.float32)
        self.dict = {"observation": self.tensor}

    def set_from(self, state: MancalaState, player: int) -> None:
        self.tensor[:] = state.game.observation(_SIDES[player])

    def string_from(self, state: MancalaState, player: int) -> str:
        return f"{_SIDES[player]}: {state.game.position}"


pyspiel.register_game(_GAME_TYPE, MancalaGame)
