"""Signal handling and atomic checkpoints for a training loop, as traintop expects them.

Python 3 standard library only: copy this file next to your training script.

Signals (what ``traintop signal save`` / ``traintop signal emergency`` and the TUI's keys send):

    SIGUSR1  save a checkpoint at the next safe point, then keep training   (kind "manual")
    SIGTERM  save a checkpoint, then exit 99: "preempted, requeue me"       (kind "emergency")
    SIGINT   save a checkpoint, then exit 0                                 (kind "emergency")

The handlers only record what arrived. CPython runs a signal handler on the main thread between two
bytecodes of whatever the main thread is doing, so a handler that saved would run in the middle of a
forward pass, an optimizer step or, worse, another save (a torch.save half written to the same file).
The training loop asks ``SignalFlags.take()`` between steps (the safe point) and saves there.

On-disk layout (traintop's "seed" layout, which it reads completely: step, kind, time, keep-N):

    RUN_DIR/checkpoints/
        checkpoint_step_<N>_<YYYYmmdd_HHMMSS>/       a complete checkpoint (only ever appears whole)
            state.pt
        checkpoint_step_<N>_<YYYYmmdd_HHMMSS>.tmp/   a save in progress, or one that was killed: partial
        checkpoint_metadata.json                     {"checkpoints": [...], "latest_checkpoint": {...},
                                                      "max_checkpoints": N}
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
from dataclasses import dataclass, field
from datetime import datetime
from typing import List, Optional, Tuple

EXIT_PREEMPTED = 99
"""Exit code after SIGTERM: the job saved and wants to be requeued (e.g. SLURM --requeue)."""

CHECKPOINT_DIR = "checkpoints"
METADATA_FILE = "checkpoint_metadata.json"
STATE_FILE = "state.pt"
KINDS = ("periodic", "manual", "emergency")
FINAL_NAME = re.compile(r"^checkpoint_step_(\d+)_(\d{8}_\d{6})$")


@dataclass(frozen=True)
class Request:
    """What the signals received since the last safe point ask for."""

    save: bool
    """SIGUSR1 arrived: save a manual checkpoint and go on."""
    exit_code: Optional[int]
    """SIGTERM (99) or SIGINT (0) arrived: save an emergency checkpoint, then exit with this code."""

    def checkpoint_kind(self, step: int, save_every: int = 0) -> Optional[str]:
        """The kind of checkpoint to save at this step, or None: emergency > manual > periodic."""
        if self.exit_code is not None:
            return "emergency"
        if self.save:
            return "manual"
        if save_every > 0 and step % save_every == 0:
            return "periodic"
        return None


@dataclass
class SignalFlags:
    """Written by the signal handlers, read by the training loop between steps.

    The handlers only append and count; the loop only remembers how far it has read. Neither ever
    overwrites what the other wrote, so a signal that arrives while the loop is reading (a handler
    can run between any two bytecodes) is never lost: it is seen at the next safe point.
    """

    received: List[int] = field(default_factory=list)
    """Signal numbers in order of arrival (appended by the handlers)."""
    save_requests: int = 0
    """SIGUSR1s received so far (incremented by the handler)."""
    exit_code: Optional[int] = None
    """Set by the first SIGTERM or SIGINT; later ones do not change it."""
    _saves_taken: int = field(default=0, init=False, repr=False)
    _seen: int = field(default=0, init=False, repr=False)

    def handle(self, signum: int, _frame: object = None) -> None:
        """The signal handler: record, never act (no I/O, no locks, no saving here)."""
        self.received.append(signum)
        if signum == signal.SIGUSR1:
            self.save_requests += 1
        elif signum == signal.SIGTERM and self.exit_code is None:
            self.exit_code = EXIT_PREEMPTED
        elif signum == signal.SIGINT and self.exit_code is None:
            self.exit_code = 0

    def take(self) -> Request:
        """At a safe point: what was asked for since the last call. A save request is consumed; an exit is not."""
        count = self.save_requests
        save = count != self._saves_taken
        self._saves_taken = count
        return Request(save=save, exit_code=self.exit_code)

    def new_signals(self) -> List[str]:
        """Names of the signals received since the last call (for logging, outside the handler)."""
        end = len(self.received)
        names = [signal.Signals(num).name for num in self.received[self._seen : end]]
        self._seen = end
        return names


def install_handlers(flags: Optional[SignalFlags] = None) -> SignalFlags:
    """Installs the handlers for SIGUSR1, SIGTERM and SIGINT; call it on the main thread before training.

    Afterwards /proc/PID/status shows the three signals as caught, which is how traintop tells that a
    rank will survive SIGUSR1 (without a handler, SIGUSR1 kills the process) before it sends one.
    """
    flags = flags if flags is not None else SignalFlags()
    for signum in (signal.SIGUSR1, signal.SIGTERM, signal.SIGINT):
        signal.signal(signum, flags.handle)
    return flags


# --- checkpoints -----------------------------------------------------------------------------------


def _fsync_dir(path: str) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_synced(path: str, data: bytes) -> None:
    with open(path, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


def read_metadata(run_dir: str) -> dict:
    """checkpoint_metadata.json's content; an empty dict when it is missing or unreadable."""
    try:
        with open(os.path.join(run_dir, CHECKPOINT_DIR, METADATA_FILE), encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def latest_checkpoint(run_dir: str) -> Optional[Tuple[int, str]]:
    """(step, path of its state.pt) of the latest complete checkpoint in the metadata, or None."""
    latest = read_metadata(run_dir).get("latest_checkpoint")
    if not isinstance(latest, dict) or not isinstance(latest.get("step"), int):
        return None
    name = _entry_name(latest)
    state = os.path.join(run_dir, CHECKPOINT_DIR, name, STATE_FILE)
    return (latest["step"], state) if FINAL_NAME.match(name) and os.path.isfile(state) else None


def _complete_checkpoints(root: str) -> List[str]:
    """Names of the complete checkpoint directories, oldest first (by the time in the name, then step)."""
    found = []
    for name in os.listdir(root):
        match = FINAL_NAME.match(name)
        if match and os.path.isdir(os.path.join(root, name)):
            found.append((match.group(2), int(match.group(1)), name))
    return [name for _, _, name in sorted(found)]


def _entry_name(entry: dict) -> str:
    return os.path.basename(str(entry.get("checkpoint_path", "")).rstrip("/"))


def save_checkpoint(
    run_dir: str, step: int, state_bytes: bytes, kind: str, keep: int, epoch: Optional[float] = None
) -> str:
    """Saves state_bytes as RUN_DIR/checkpoints/checkpoint_step_<step>_<time>/state.pt; returns that name.

    Atomic: the state is written and fsynced inside ``<name>.tmp/``, which is then renamed to ``<name>``,
    so a complete name never has partial contents and a killed save leaves only the ``.tmp`` directory
    (traintop shows it as partial). Then checkpoint_metadata.json is replaced (temporary file + rename),
    and last the oldest complete checkpoints beyond ``keep`` are deleted. Call it from one process only
    (rank 0): the metadata is shared.
    """
    if kind not in KINDS:
        raise ValueError("kind must be one of %s, not %r" % (", ".join(KINDS), kind))
    if keep < 1:
        raise ValueError("keep must be at least 1, not %r" % (keep,))
    root = os.path.join(run_dir, CHECKPOINT_DIR)
    os.makedirs(root, exist_ok=True)
    now = datetime.now().astimezone()
    name = "checkpoint_step_%d_%s" % (step, now.strftime("%Y%m%d_%H%M%S"))
    final = os.path.join(root, name)
    if os.path.exists(final):
        return name  # this step was saved already within this second (e.g. right after a resume)

    temporary = final + ".tmp"
    if os.path.exists(temporary):
        shutil.rmtree(temporary)  # a killed save of this very name
    os.mkdir(temporary)
    _write_synced(os.path.join(temporary, STATE_FILE), state_bytes)
    _fsync_dir(temporary)
    os.rename(temporary, final)  # the commit point
    _fsync_dir(root)

    entry = {
        "step": step,
        "epoch": epoch,
        # With its UTC offset, so a reader in another time zone gets the same instant.
        "timestamp": now.isoformat(timespec="milliseconds"),
        "checkpoint_path": "./%s/%s" % (CHECKPOINT_DIR, name),
        "kind": kind,
    }
    complete = _complete_checkpoints(root)
    doomed = [old for old in complete[:-keep] if old != name]
    survivors = [old for old in complete if old not in doomed]
    order = {old: index for index, old in enumerate(survivors)}
    previous = read_metadata(run_dir).get("checkpoints")
    entries = [e for e in previous if isinstance(e, dict)] if isinstance(previous, list) else []
    entries = [e for e in entries if _entry_name(e) in order and _entry_name(e) != name] + [entry]
    entries.sort(key=lambda e: order[_entry_name(e)])  # oldest first, like the directories
    metadata = {"checkpoints": entries, "latest_checkpoint": entry, "max_checkpoints": keep}
    path = os.path.join(root, METADATA_FILE)
    _write_synced(path + ".tmp", (json.dumps(metadata, indent=2) + "\n").encode())
    os.rename(path + ".tmp", path)
    _fsync_dir(root)

    # Retention last, once the metadata no longer names them: it never points at a deleted directory.
    for old in doomed:
        shutil.rmtree(os.path.join(root, old), ignore_errors=True)
    return name
