"""Type stubs of the compiled part of the ``mancala`` package."""

import os
from typing import Any, Dict, List, Optional, Tuple, Union, final

import numpy as np
import numpy.typing as npt

__version__: str
SWAP: int
"""The pie rule's swap (128) in ``Game.legal_moves()`` and ``Game.play()``: not a pit."""
__all__ = ["Game", "VecGame", "Egdb", "Level", "analyze", "solve", "presets", "SWAP", "__version__"]

_Value = Dict[str, Any]
"""An engine value: ``side`` ("south"/"north"), ``margin`` (final seeds of ``side`` minus the
other's), ``score`` (the margin turned so that higher is better for ``side``),
``lower_is_better`` (misère), ``tie_break`` (a margin of one seed is a tie on seeds won by
Kauri's cowrie rule), ``proven``, ``depth`` (a search's depth, else None), ``text``."""

_PositionLike = Union[str, "Game"]
# What ``VecGame.step`` returns: observations ``(n, observation_size)``, rewards ``(n,)``,
# dones ``(n,)``, masks ``(n, pits)``.
_Step = Tuple[
    npt.NDArray[np.float32], npt.NDArray[np.float32], npt.NDArray[np.bool_], npt.NDArray[np.bool_]
]
# What ``VecGame.step_random`` returns: the actions ``(n,)``, then a step's four arrays.
_RandomStep = Tuple[
    npt.NDArray[np.int64],
    npt.NDArray[np.float32],
    npt.NDArray[np.float32],
    npt.NDArray[np.bool_],
    npt.NDArray[np.bool_],
]

def presets() -> List[str]:
    """Every preset's name (``kalah``, ``kauri``, ...)."""

@final
class Game:
    """A game of any preset: moves, undo, the repetition rule, records, observations.

    ``Game(rules="kalah,seeds=4")`` starts from the rules' start, ``Game(position=P)`` from a
    position string. Pits are 0-based from the mover's left.
    """

    def __new__(cls, rules: Optional[str] = None, position: Optional[str] = None) -> "Game": ...
    @property
    def rules(self) -> str:
        """The rules string (``kalah,seeds=4``)."""
    @property
    def pits(self) -> int:
        """Pits a side (the length of ``legal_mask()``)."""
    @property
    def observation_size(self) -> int:
        """Entries of ``observation()``."""
    @property
    def total_seeds(self) -> int:
        """Seeds in the game (the most any observation entry can count)."""
    @property
    def pie_rule(self) -> bool:
        """Whether the rules have the pie rule (North's first action may be ``SWAP``)."""
    def legal_moves(self) -> List[int]:
        """The legal moves: own pits, 0-based from the mover's left, and ``SWAP`` where the
        pie rule's swap is legal; empty once over."""
    def legal_mask(self) -> npt.NDArray[np.bool_]:
        """The legal moves as a boolean array of ``pits`` entries; ``ValueError`` where the
        pie rule's swap is legal (no pit shows it: use ``legal_moves()``)."""
    def play(self, pit: int) -> None:
        """Plays own pit ``pit`` (or ``SWAP`` where legal); ``ValueError`` (game unchanged) for
        an illegal move, ``TypeError`` for a bool or a float."""
    def undo(self) -> Optional[int]:
        """Takes back the last move and returns its pit (``SWAP`` for a swap); ``None`` at the
        start."""
    @property
    def to_move(self) -> str:
        """``"south"`` or ``"north"``."""
    @property
    def is_over(self) -> bool:
        """Whether the game has ended, by its end rule or by repetition."""
    def reward(self, side: str, kind: str = "win") -> float:
        """What the game pays ``side``: 0 while live; ``"win"`` +1/-1/0, ``"margin"`` the final
        seed margin, higher better (negated in a misère game), as VecGame's rewards."""
    @property
    def outcome(self) -> Optional[str]:
        """``"south"``, ``"north"``, ``"draw"``, or ``None`` while the game is live."""
    @property
    def scores(self) -> Tuple[int, int]:
        """The stores ``(south, north)``."""
    @property
    def position(self) -> str:
        """The position string now."""
    @property
    def start(self) -> str:
        """The position string of the start."""
    @property
    def moves(self) -> List[int]:
        """The pits played so far, oldest first (``SWAP`` for a swap)."""
    def clone(self) -> "Game":
        """A copy of the game, its moves included."""
    def __copy__(self) -> "Game": ...
    def __deepcopy__(self, _memo: Any) -> "Game": ...
    def __reduce__(self) -> Tuple[Any, Tuple[str]]:
        """Pickling: the game is rebuilt from its JSON record."""
    def record(self, format: str = "json", south: Optional[str] = None, north: Optional[str] = None) -> str:
        """The record: ``"json"`` or ``"text"`` (the game's notation)."""
    @staticmethod
    def from_record(text: str, rules: Optional[str] = None) -> "Game":
        """The game a record (JSON or text) gives, replayed and checked."""
    def observation(self, side: Optional[str] = None) -> npt.NDArray[np.float32]:
        """The position from ``side``'s view (default: the side to move); layout in the
        package docstring."""

@final
class VecGame:
    """``n`` games stepped together in Rust (GIL released), restarted when they end.

    ``rules`` (default ``"kalah"``) or ``position`` (a position string to start every game
    from; ``rules``, when also given, must agree) as for :class:`Game`.
    ``reward``: ``"win"`` (+1/-1/0) or ``"margin"`` (final seed margin, higher is better) for
    the player who made the game's last move. ``opening``: up to that many random plies start
    each game. ``seed`` drives openings, ``sample_actions`` and ``step_random`` (each game
    has its own generator, so a seed gives the same games whatever the threads).
    ``parallel``: steps of 256 games or more can be shared, in chunks of 128 games or more, by
    the calling thread and the process's helper threads, one a core besides the caller
    (``RAYON_NUM_THREADS`` sets the threads in all); the helpers spin for a quarter of a
    millisecond after a step, so that the next finds them awake, then sleep. ``None`` (the
    default) times the steps and shares them only while that is faster: it tries the other way
    for a few steps now and then (every 32 steps after a change, doubling to every 4096), so it
    leaves the helpers when other processes keep their cores busy and takes them again when the
    cores are idle. ``True`` always shares; ``False`` steps every game on the calling thread.
    One ``VecGame`` is stepped by
    one thread at a time; a call from another thread meanwhile raises ``RuntimeError``. Rules
    with the pie rule are refused (``ValueError``): actions and masks are pits, and the swap
    is not one. Actions are integers; floats and booleans are refused, not cast.
    """

    def __new__(
        cls,
        rules: Optional[str] = None,
        n: int = 1,
        seed: int = 0,
        reward: str = "win",
        opening: int = 0,
        position: Optional[str] = None,
        parallel: Optional[bool] = None,
    ) -> "VecGame": ...
    @property
    def parallel(self) -> Optional[bool]:
        """``None`` (chosen step by step), or whether large steps are always shared with
        helper threads (``False`` on one core)."""
    @parallel.setter
    def parallel(self, value: Optional[bool]) -> None: ...
    @property
    def sharing(self) -> bool:
        """Whether the next step is shared with helper threads (never for fewer than 256
        games)."""
    @property
    def n(self) -> int: ...
    @property
    def rules(self) -> str: ...
    @property
    def pits(self) -> int:
        """Pits a side: actions are ``0..pits``."""
    @property
    def observation_size(self) -> int: ...
    def reset(
        self, seed: Optional[int] = None, positions: Optional[List[str]] = None
    ) -> Tuple[npt.NDArray[np.float32], npt.NDArray[np.bool_]]:
        """Starts every game again (game ``i`` from ``positions[i]`` where given: a position
        string of the batch's rules, not over); returns ``(observations, masks)``.
        ``ValueError`` for a bad position, naming its game; then no game changes."""
    def reset_at(self, indices: List[int], positions: List[str]) -> None:
        """Sets game ``indices[j]`` to ``positions[j]``, the other games and the generators
        unchanged; ``ValueError`` for a bad index or position, and then no game changes."""
    def get_state(self) -> Dict[str, Any]:
        """The batch as plain values: ``start``, ``opening``, ``reward``, ``parallel``,
        ``games`` (each ``(start, moves)``: the game's start and the pits played since where
        the repetition rule needs them, else the position now and no move), ``rngs`` (the
        generators' states) and ``final_scores``."""
    @staticmethod
    def from_state(state: Dict[str, Any]) -> "VecGame":
        """The batch of a ``get_state()`` dict, which continues as the original does."""
    def set_state(self, state: Dict[str, Any]) -> None:
        """Makes this batch the one of ``state`` (unchanged on an error)."""
    def clone(self) -> "VecGame":
        """A copy that continues as this batch does given the same actions."""
    def observations(self) -> npt.NDArray[np.float32]:
        """Shape ``(n, observation_size)``, from each game's mover."""
    def masks(self) -> npt.NDArray[np.bool_]:
        """Shape ``(n, pits)``."""
    def to_move(self) -> npt.NDArray[np.int8]:
        """0 South, 1 North, for every game."""
    def positions(self) -> List[str]:
        """The position string of every game."""
    def final_scores(self) -> npt.NDArray[np.int16]:
        """Stores ``(south, north)`` of the games that ended at the last step, shape ``(n, 2)``."""
    def sample_actions(
        self,
        out: Optional[npt.NDArray[np.int64]] = None,
        logits: Optional[npt.ArrayLike] = None,
    ) -> npt.NDArray[np.int64]:
        """A random legal move of every game, from the seeded generator, shape ``(n,)``;
        written into ``out`` (int64, ``(n,)``) when given, and returned. Uniform; with
        ``logits`` (float, ``(n, pits)``: a policy's scores), drawn from the softmax of each
        game's logits over its legal moves: -inf gives a pit no chance, the logits of illegal
        pits are not read, and a NaN or +inf among the legal ones (or -inf for all) is a
        ``ValueError`` naming the game. The draw is done in the extension, in float32 (logits
        of other dtypes shifted by each game's largest legal logit first)."""
    def step(
        self,
        actions: npt.ArrayLike,
        out: Optional[_Step] = None,
        active: Optional[npt.NDArray[np.bool_]] = None,
        final_observations: Optional[npt.NDArray[np.float32]] = None,
    ) -> _Step:
        """Plays ``actions[i]`` (own pit, 0-based from the mover's left) in game ``i``; returns
        ``(observations, rewards, dones, masks)``, each game's after its move (a finished game
        is started again: its observation and mask are the new game's). A reward is for the
        player who made the move, 0 until the game ends. ``ValueError`` for an illegal action,
        naming its game; then no game moves.

        ``out``: the four arrays of an earlier step's result (or arrays of the same dtypes and
        shapes, C-contiguous), written instead of new ones and returned: a step then allocates
        nothing. They are overwritten at every such step, so copy what must be kept.

        ``active`` (bool, ``(n,)``): only the games it marks move; the others keep their
        position and generator, report reward 0 and not done, and their actions are not
        checked. ``final_observations`` (float32, ``(n, observation_size)``): each game that
        ends writes there the finished position as seen by the player who made the last move
        (whose reward it is) before it starts again; the other rows are left as they were.
        (What ``mancala.vector_env`` and ``mancala.sb3_vec_env`` build their autoreset on.)
        """
    def step_random(
        self,
        out: Optional[_RandomStep] = None,
        active: Optional[npt.NDArray[np.bool_]] = None,
        final_observations: Optional[npt.NDArray[np.float32]] = None,
        logits: Optional[npt.ArrayLike] = None,
    ) -> _RandomStep:
        """Plays a random legal move in every game, drawn from the seeded generator as
        ``sample_actions`` draws it (uniform, or from the softmax of ``logits``), in the
        step's own pass over the games; returns ``(actions, observations, rewards, dones,
        masks)``. ``out``: the five arrays of an earlier call's result, written instead of new
        ones, as for ``step``. ``active`` and ``final_observations`` as for ``step`` (a game
        that does not move draws nothing: its action is -1, and its logits are not read).
        With ``logits`` this is a policy's whole step: sample and play in one call."""
    def __len__(self) -> int: ...

def analyze(
    position: _PositionLike,
    time_ms: int = 1000,
    depth: Optional[int] = None,
    threads: int = 1,
    tt_mb: int = 64,
    egdb: Optional[Union[str, os.PathLike[str]]] = None,
    all_moves: bool = False,
) -> Dict[str, Any]:
    """Searches a position: ``best``, ``value`` (a Value), ``pv``, ``depth``, ``nodes``,
    ``seconds``. With ``all_moves``, the analysis board's policy (as ``mancala analyze
    --all-moves`` and the server, spending the same time): ``moves`` best first
    (``[{"pit", "value", "loss"}]``), ``best``/``value`` the best move's, ``pv`` the best
    line, ``nodes`` None."""

def solve(
    position: _PositionLike,
    time_ms: Optional[int] = None,
    threads: int = 1,
    tt_mb: Optional[int] = None,
    egdb: Optional[Union[str, os.PathLike[str]]] = None,
) -> Dict[str, Any]:
    """Proves a position's exact value; returns the dict of ``mancala solve --json``:
    ``variant``, ``position``, ``value`` (final seed margin for the side to move),
    ``value_is``, ``eval`` (a proven Value), ``best`` and ``pv`` (in the game's notation),
    ``nodes``; and ``best_pit``, ``pv_pits`` (own pits, 0-based), ``seconds``.
    ``RuntimeError`` when no proof finishes."""

def split(
    position: _PositionLike,
    turns: int,
    jobs_dir: Union[str, os.PathLike[str]],
    at_least: Optional[int] = None,
    at_most: Optional[int] = None,
    egdb: Optional[Union[str, os.PathLike[str]]] = None,
) -> Dict[str, Any]:
    """Splits the proof of a bound into job files in ``jobs_dir`` (``mancala solve --split``);
    returns the first merge, as ``merge``."""

def prove_job(
    path: Union[str, os.PathLike[str]],
    tt_mb: Optional[int] = None,
    threads: int = 1,
    time_ms: Optional[int] = None,
    egdb: Optional[Union[str, os.PathLike[str]]] = None,
    force: bool = False,
) -> Dict[str, Any]:
    """Proves one job file and writes its result beside it (``mancala prove-job``); returns the
    result: ``holds``, ``bound``, ``proven``, ``nodes``, ``seconds``, ..."""

def merge(jobs_dir: Union[str, os.PathLike[str]]) -> Dict[str, Any]:
    """What the results in ``jobs_dir`` prove (``mancala solve --merge --json``): ``status``,
    ``holds`` (the question as asked; ``None`` while open), ``answer``, ``unproven``, ..."""

@final
class Egdb:
    """Endgame tables built by ``mancala egdb build --dir DIR``; ``ValueError`` for a folder
    that holds none."""

    def __new__(cls, dir: Union[str, os.PathLike[str]]) -> "Egdb": ...
    def value(self, position: _PositionLike) -> Optional[_Value]:
        """The exact value for the side to move, or ``None`` where neither a table nor the
        opening book (``mancala egdb book``) holds it."""
    def best_moves(self, position: _PositionLike) -> Optional[List[int]]:
        """The pits that reach the value, or ``None`` where the tables cannot say."""
    @property
    def dir(self) -> str: ...

@final
class Level:
    """A playing level of the computer, 1 to 8, as ``mancala play --level N``."""

    def __new__(cls, n: int) -> "Level": ...
    @property
    def level(self) -> int: ...
    def choose(self, position: _PositionLike, seed: int = 0) -> int:
        """The level's move (pit) for the side to move."""
