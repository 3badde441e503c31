"""Writes in place, and backward's refusal to differentiate data changed since the forward.

A rule reads its node's inputs (and output) when backward runs, not when the node was made:
``y = (x * x).sum()``, then an optimizer step on ``x``, then ``y.backward()`` would silently
differentiate the new ``x``. PyTorch keeps a version counter per tensor and raises. topograd
keeps one count of the writes in place it makes (optimizer steps, in-place methods, item
assignment, ``load_state_dict``), for the whole program: each node notes the count when it is
made (its *stamp*), a write stamps what it wrote with the new count, and backward refuses a
node that has an input stamped later than itself. A training loop pays one comparison per node:
its nodes all carry the latest count.

A write into ``.data`` by hand, or into an array passed in, goes around topograd and is not
counted (PyTorch does not count it either); under ``tg.detect_anomaly()`` backward notices
it too, by a checksum each node takes of the data it saved.

>>> import topograd as tg
>>> w = tg.Value(2.0, label="w")
>>> y = w * w
>>> y.backward()
>>> tg.optim.SGD([w], lr=0.1).step()
>>> y.backward()
Traceback (most recent call last):
...
RuntimeError: one of the variables needed for gradient computation has been modified by an \
inplace operation: input 1 of mul, Value w, was written by SGD.step after the mul was \
recorded. Run the forward again after the write.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from .kinds import kind_of
from .modes import AnomalyError
from .registry import OUT


class Writes:
    """The count of writes in place topograd has made, and who made the recent ones; for the
    whole program (a write in one thread is seen by a backward in another), under a lock."""

    __slots__ = ("by", "count", "lock")

    def __init__(self) -> None:
        self.count = 0
        self.by: dict[int, str] = {}  # count -> what wrote then ("SGD.step"), the last few
        self.lock = threading.Lock()


WRITES = Writes()
_REMEMBERED = 256  # writers remembered for the messages


def wrote(nodes: Iterable[Any], by: str) -> None:
    """Record that ``by`` (e.g. "SGD.step") has just written the data of ``nodes`` in place:
    a backward through a node recorded before now that needs one of them raises."""
    with WRITES.lock:
        count = WRITES.count = WRITES.count + 1
        WRITES.by[count] = by
        WRITES.by.pop(count - _REMEMBERED, None)
    known: type | None = None
    kind = None
    for node in nodes:
        if type(node) is not known:  # (a kind is its type's: asked once a type)
            known, kind = type(node), kind_of(node)
        if kind is not None:
            kind.written(node, count)


def created(stamp: Any) -> int:
    """When a node was made, from its stamp: an int, or (made, written) for a node written
    in place after it was made."""
    return stamp if type(stamp) is int else stamp[0]


def written(stamp: Any) -> int:
    """When a node's data was last written (or made, if never written), from its stamp."""
    return stamp if type(stamp) is int else stamp[1]


def restamp(stamp: Any, count: int, has_inputs: bool) -> Any:
    """A node's stamp after a write at ``count``: a leaf's is the count; a node with inputs
    keeps when it was made too, to check its own inputs against."""
    return (created(stamp), count) if has_inputs else count


def refuse_if_stale(
    op: Any,
    node: Any,
    stamp: Any,
    inputs: Iterable[tuple[int, Any, Any]],
    named: Callable[[Any], str],
) -> None:
    """Raise PyTorch's error if ``node`` (made by ``op``, stamped ``stamp``) has an input, or
    its own data, written in place after it was made and read by its rule. ``inputs``: the
    position, node and stamp of each input that is a node; ``named`` describes a node.

    >>> import topograd as tg
    >>> x = tg.Tensor([1.0, 2.0], requires_grad=True)
    >>> y = x * x
    >>> with tg.no_grad():
    ...     _ = x.mul_(2.0)
    >>> try:
    ...     y.backward(tg.Tensor([1.0, 1.0]).data)  # mul's rule reads x: refused
    ... except RuntimeError as error:
    ...     print(str(error)[:60])
    one of the variables needed for gradient computation has bee
    """
    made = created(stamp)
    for i, x, x_stamp in inputs:
        if written(x_stamp) > made and op.saved(i):
            raise modified(op.name, i, named(x), x_stamp)
    if written(stamp) > made and op.saved(OUT):
        raise modified(op.name, OUT, named(node), stamp)


def first_changed(op: Any, now: Sequence[Any], then: Sequence[Any]) -> int | None:
    """Anomaly mode: the position (OUT for the last, the output) of the first saved datum the
    rule reads that is not what it was (numbers, nan equal to nan, or checksums), or None.

    >>> from topograd.autograd.registry import OPS
    >>> first_changed(OPS["mul"], [2.0, 3.0, 6.0], [2.0, 3.0, 6.0]) is None
    True
    >>> first_changed(OPS["mul"], [2.0, 4.0, 6.0], [2.0, 3.0, 6.0])  # b, read by a's rule
    1
    """
    if tuple(now) == tuple(then):  # (the same objects while nothing changed: nan included)
        return None
    for i, (a, b) in enumerate(zip(now, then)):
        position = OUT if i == len(then) - 1 else i
        if not (a == b or (a != a and b != b)) and op.saved(position):
            return position
    return None


def modified(op: str, position: int, what: str, stamp: Any) -> RuntimeError:
    """PyTorch's error for input ``position`` (from 0; -1 for the output) of a node of ``op``,
    described as ``what``, written after the node was recorded."""
    by = WRITES.by.get(written(stamp), "an in-place write")
    which = "the output" if position < 0 else f"input {position + 1}"
    return RuntimeError(
        "one of the variables needed for gradient computation has been modified by an "
        f"inplace operation: {which} of {op}, {what}, was written by {by} after the {op} was "
        "recorded. Run the forward again after the write."
    )


def changed(op: str, position: int, what: str, where: str) -> AnomalyError:
    """Anomaly mode's error for data a node saved, changed behind topograd's back."""
    saved = "the output" if position < 0 else f"input {position + 1}"
    return AnomalyError(
        f"the data of {saved} of {op} ({what}) changed between the forward and this "
        f"backward, by a write topograd did not see (into .data, or into an array passed in). "
        f"The {op} was created at {where}"
    )
