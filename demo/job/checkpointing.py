"""Checkpoint writing for the demo training job (Python 3 standard library only).

Layout, in the seed's style (RUN_DIR is the ranks' working directory):

    RUN_DIR/checkpoints/
        checkpoint_step_<N>_<YYYYmmdd_HHMMSS>/      a complete checkpoint (final name)
            state.pt                                 a stored (uncompressed) zip, as torch.save writes one
            meta.json                                {"step", "epoch", "kind", "time", ...}
        checkpoint_step_<N>_<YYYYmmdd_HHMMSS>.tmp/  a save in progress (or one that was killed)
        checkpoint_metadata.json                     {"checkpoints": [...], "latest_checkpoint": {...}, "max_checkpoints": M}

A save writes the temporary directory, fsyncs it, renames it to the final name, then replaces
checkpoint_metadata.json (temporary file + rename), then deletes the oldest final directories beyond
max_checkpoints. A reader therefore never sees a final name with partial contents.
"""

import io
import json
import os
import re
import shutil
import time
import zipfile

CHECKPOINT_DIR = "checkpoints"
METADATA_FILE = "checkpoint_metadata.json"
FINAL_NAME = re.compile(r"^checkpoint_step_(\d+)_(\d{8}_\d{6})$")
KINDS = ("periodic", "manual", "emergency")

_PAYLOAD_NAME = "state/data/0"
_CHUNK = 1 << 20


def _zip_entries(step, epoch):
    """The small members of state.pt, laid out like a torch.save archive."""
    return [
        ("state/data.pkl", json.dumps({"step": step, "epoch": epoch}).encode()),
        ("state/byteorder", b"little"),
        ("state/version", b"3\n"),
    ]


def _write_state(handle, step, epoch, payload_size):
    """Writes a stored zip whose payload member has payload_size bytes (streamed, never all in memory)."""
    with zipfile.ZipFile(handle, "w", compression=zipfile.ZIP_STORED) as archive:
        for name, data in _zip_entries(step, epoch):
            archive.writestr(zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0)), data)
        info = zipfile.ZipInfo(_PAYLOAD_NAME, date_time=(2026, 1, 1, 0, 0, 0))
        info.file_size = payload_size
        with archive.open(info, "w") as member:
            pattern = bytes((step + i) % 251 for i in range(251)) * (_CHUNK // 251 + 1)
            left = payload_size
            while left > 0:
                chunk = pattern[: min(left, _CHUNK)]
                member.write(chunk)
                left -= len(chunk)


def _zip_overhead(step, epoch):
    buffer = io.BytesIO()
    _write_state(buffer, step, epoch, 0)
    return len(buffer.getvalue())


def _fsync_path(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def _write_file(path, data):
    with open(path, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


def read_metadata(run_dir):
    """The metadata file's content, or None when it is missing or unreadable."""
    try:
        with open(os.path.join(run_dir, CHECKPOINT_DIR, METADATA_FILE), encoding="utf-8") as handle:
            data = json.load(handle)
        return data if isinstance(data, dict) else None
    except (OSError, ValueError):
        return None


def latest_step(run_dir):
    """The step of the latest checkpoint recorded in the metadata, or 0."""
    data = read_metadata(run_dir)
    latest = data.get("latest_checkpoint") if data else None
    step = latest.get("step") if isinstance(latest, dict) else None
    return step if isinstance(step, int) and step >= 0 else 0


def save_checkpoint(run_dir, step, epoch, kind, state_bytes, max_checkpoints, slow_save_seconds=0.0, extra=None):
    """Writes one checkpoint, updates the metadata, applies retention. Returns the final directory's name."""
    if kind not in KINDS:
        raise ValueError("unknown checkpoint kind: %r" % (kind,))
    root = os.path.join(run_dir, CHECKPOINT_DIR)
    os.makedirs(root, exist_ok=True)
    now = time.time()
    local = time.localtime(now)
    name = "checkpoint_step_%d_%s" % (step, time.strftime("%Y%m%d_%H%M%S", local))
    final = os.path.join(root, name)
    if os.path.exists(final):
        # Same step saved twice within one second (only after a restart from that step): keep the first.
        return name
    temporary = final + ".tmp"
    if os.path.exists(temporary):
        shutil.rmtree(temporary)  # left by a save that was killed
    os.mkdir(temporary)

    overhead = _zip_overhead(step, epoch)
    with open(os.path.join(temporary, "state.pt"), "wb") as handle:
        _write_state(handle, step, epoch, max(0, state_bytes - overhead))
        handle.flush()
        os.fsync(handle.fileno())
    if slow_save_seconds > 0:
        time.sleep(slow_save_seconds)  # lets a test (or the demo) see the partial .tmp directory
    meta = {"step": step, "epoch": epoch, "kind": kind, "time": time.strftime("%Y-%m-%dT%H:%M:%S", local)}
    if extra:
        meta.update(extra)
    _write_file(os.path.join(temporary, "meta.json"), (json.dumps(meta, indent=2) + "\n").encode())
    _fsync_path(temporary)
    os.rename(temporary, final)
    _fsync_path(root)

    entry = {
        "step": step,
        "epoch": epoch,
        "timestamp": meta["time"],
        "checkpoint_path": "./%s/%s" % (CHECKPOINT_DIR, name),
        "kind": kind,
    }
    _update_metadata(run_dir, root, entry, max_checkpoints)
    return name


def _final_dirs(root):
    """Final checkpoint directories, oldest first (by step, then timestamp)."""
    found = []
    for entry in os.listdir(root):
        match = FINAL_NAME.match(entry)
        if match and os.path.isdir(os.path.join(root, entry)):
            found.append((int(match.group(1)), match.group(2), entry))
    found.sort()
    return [entry for _, _, entry in found]


def _update_metadata(run_dir, root, entry, max_checkpoints):
    keep = max(1, max_checkpoints)
    finals = _final_dirs(root)
    doomed = finals[:-keep]
    kept = set(finals[-keep:])

    previous = read_metadata(run_dir) or {}
    entries = [e for e in previous.get("checkpoints", []) if isinstance(e, dict)]
    entries = [e for e in entries if e.get("checkpoint_path") != entry["checkpoint_path"]] + [entry]
    entries = [e for e in entries if os.path.basename(str(e.get("checkpoint_path", ""))) in kept]
    entries.sort(key=lambda e: (e.get("step", 0), str(e.get("timestamp", ""))))
    data = {"checkpoints": entries, "latest_checkpoint": entry, "max_checkpoints": keep}

    path = os.path.join(root, METADATA_FILE)
    temporary = path + ".tmp"
    _write_file(temporary, (json.dumps(data, indent=2) + "\n").encode())
    os.rename(temporary, path)
    _fsync_path(root)

    # Retention after the metadata stops naming them: the metadata never points at a deleted directory.
    for name in doomed:
        shutil.rmtree(os.path.join(root, name), ignore_errors=True)
