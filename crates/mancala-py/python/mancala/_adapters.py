"""What the adapters (Gymnasium, PettingZoo, OpenSpiel) share: their actions are own pits."""

from typing import Any

import numpy as np

from ._mancala import Game


def as_pit(action: Any, pits: int) -> int:
    """``action`` as an int; ``ValueError`` for anything but one integer (a float or a bool is
    refused, not cast). Whether the pit is legal is the caller's to check."""
    a = np.asarray(action)
    if a.shape != () or a.dtype.kind not in "iu":
        raise ValueError(f"action {action!r}: give an own pit, an integer 0-{pits - 1}")
    return int(a)


def refuse_pie(game: Game, what: str) -> None:
    """``ValueError`` where ``game``'s rules have the pie rule, whose swap is no pit."""
    if game.pie_rule:
        raise ValueError(
            f"{game.rules}: {what}'s actions are pits, and the pie rule's swap is not one; "
            "play games with the pie rule with mancala.Game (legal_moves() include mancala.SWAP)"
        )
