"""Kalah-family sowing games for people who train and test agents.

Every game and rule option of the ``mancala`` command (Kalah and its options, the Brazilian
classroom Kalah, Vaccean, Cross-Kalah, Dracala, Kauri, Oware), with the same rules strings and
position strings:

- :class:`Game`: one game, moves 0-based from the mover's left, undo, records, observations;
- :class:`VecGame`: many games stepped together in Rust, as numpy arrays;
- :func:`analyze`, :func:`solve`, :class:`Egdb`, :class:`Level`: the engine's values (each a
  dict with ``side``, ``margin``, ``score``, ``lower_is_better``, ``proven``, ``depth``,
  ``text``), proofs, endgame tables and the computer's playing levels;
- :func:`split`, :func:`prove_job`, :func:`merge`: a bound's proof split into job files that
  any number of processes or machines prove (as ``mancala solve --split``).

Adapters (pure Python): :mod:`mancala.gym_env` (Gymnasium; importing it registers
``mancala/Mancala-v0``, one game against a level, and ``mancala/SelfPlay-v0``, whose vector
entry point is :mod:`mancala.vector_env`, a ``gymnasium.vector.VectorEnv`` on one
:class:`VecGame`), :mod:`mancala.sb3_vec_env` (Stable-Baselines3's ``VecEnv`` contract),
:mod:`mancala.pettingzoo_env` (PettingZoo AEC), and :mod:`mancala.openspiel_game` (OpenSpiel's
``python_mancala``, registered with ``pyspiel.register_game`` when this package is imported and
``open_spiel`` is installed).

Observation layout (float32, from the side to move, ``m`` pits a side): the mover's pits from
his left (``0..m``), the opponent's pits from the opponent's left (``m..2m``), the mover's
store (``2m``), the opponent's store (``2m+1``); in games with cowries (Kauri) then the
cowries of the mover's pits and of the opponent's, in the same order (``2m+2..4m+2``).
"""

from ._mancala import (
    SWAP,
    Egdb,
    Game,
    Level,
    VecGame,
    __version__,
    analyze,
    merge,
    presets,
    prove_job,
    solve,
    split,
)

import importlib.util as _util

if _util.find_spec("pyspiel") is not None:
    try:
        from . import openspiel_game  # noqa: F401  (registers python_mancala)
    except ImportError:  # an OpenSpiel that does not load leaves the rest of the package usable
        pass

__all__ = [
    "Game",
    "VecGame",
    "Egdb",
    "Level",
    "analyze",
    "solve",
    "split",
    "prove_job",
    "merge",
    "presets",
    "SWAP",
    "__version__",
]
