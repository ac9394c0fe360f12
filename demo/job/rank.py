"""One rank of the demo training job, started by launcher.py (Python 3 standard library only).

Imitates a training rank with preemption handling: SIGUSR1 asks for a checkpoint at the next step,
SIGTERM saves an emergency checkpoint and exits 99, SIGINT saves and exits 0. The handlers only set
flags; the step loop acts on them. Only rank 0 writes checkpoints; the others acknowledge.
DataLoader-like workers are forked children named pt_data_worker.
"""

import argparse
import os
import select
import signal
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ next to the sources
import checkpointing  # noqa: E402  (same directory: sys.path[0])

MIB = 1024 * 1024
EXIT_PREEMPTED = 99


def parse_args(argv):
    parser = argparse.ArgumentParser(description="Demo training rank (started by launcher.py).")
    parser.add_argument("--run-dir", required=True)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--step-seconds", type=float, default=0.2)
    parser.add_argument("--save-every", type=int, default=50)
    parser.add_argument("--max-checkpoints", type=int, default=3)
    parser.add_argument("--max-steps", type=int, default=0, help="0 = unlimited")
    parser.add_argument("--steps-per-epoch", type=int, default=100)
    parser.add_argument("--checkpoint-bytes", type=int, default=256 * 1024)
    parser.add_argument("--slow-save-seconds", type=float, default=0.0)
    parser.add_argument("--leak-mb-per-min", type=float, default=0.0)
    parser.add_argument("--no-usr1", action="store_true", help="install no SIGUSR1 handler")
    return parser.parse_args(argv)


def say(message):
    # One write of the whole line: ranks share the launcher's stdout, and a pipe write of up to
    # PIPE_BUF bytes is atomic, so lines from different ranks never interleave (print() may write
    # the text and the newline separately).
    sys.stdout.write(message + "\n")
    sys.stdout.flush()


# --- workers ---------------------------------------------------------------------------------------

def worker_main(parent_pid, ready_fd, read_fd):
    """A DataLoader-like worker: names itself, then sleeps until its rank is gone or it gets SIGTERM."""
    os.close(read_fd)
    # Forked children inherit the rank's Python handlers: give the worker its own, like DataLoader's.
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the rank ends its workers itself
    signal.signal(signal.SIGUSR1, signal.SIG_IGN)
    try:
        with open("/proc/self/comm", "w") as comm:
            comm.write("pt_data_worker")
    except OSError:
        pass
    os.write(ready_fd, b"w")
    os.close(ready_fd)
    while os.getppid() == parent_pid:
        time.sleep(0.1)
    os._exit(0)


def start_workers(count):
    import multiprocessing

    if count <= 0:
        return []
    context = multiprocessing.get_context("fork")
    read_fd, write_fd = os.pipe()
    workers = []
    for _ in range(count):
        worker = context.Process(target=worker_main, args=(os.getpid(), write_fd, read_fd), daemon=True)
        worker.start()
        workers.append(worker)
    os.close(write_fd)
    # Wait until every worker has named itself, so whoever reads /proc after "ready" sees them as workers.
    got = 0
    deadline = time.monotonic() + 5.0
    while got < count:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([read_fd], [], [], left)[0]:
            break
        data = os.read(read_fd, 64)
        if not data:
            break
        got += len(data)
    os.close(read_fd)
    return workers


def stop_workers(workers):
    for worker in workers:
        if worker.is_alive():
            worker.terminate()
    deadline = time.monotonic() + 2.0
    for worker in workers:
        worker.join(max(0.0, deadline - time.monotonic()))
        if worker.is_alive():
            worker.kill()
            worker.join(1.0)


# --- the rank --------------------------------------------------------------------------------------

def main(argv):
    args = parse_args(argv)
    rank = int(os.environ.get("RANK", "0"))
    world = int(os.environ.get("WORLD_SIZE", "1"))
    launcher_pid = os.getppid()

    received = []  # signal numbers, in order; the handler does nothing else
    heartbeat = os.environ.get("TRAINTOP_DEMO_HEARTBEAT") == "1"

    def on_signal(signum, _frame):
        received.append(signum)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    if not args.no_usr1:
        signal.signal(signal.SIGUSR1, on_signal)

    workers = start_workers(args.workers)
    step = checkpointing.latest_step(args.run_dir)  # every rank resumes where the last checkpoint was
    say("rank %d ready pid %d workers %s" % (rank, os.getpid(), ",".join(str(w.pid) for w in workers) or "-"))
    if step:
        say("rank %d resuming at step %d" % (rank, step))

    leak = []
    leaked = 0
    started = time.monotonic()
    save_requested = False
    exit_code = None
    seen = 0

    while True:
        time.sleep(args.step_seconds)
        if os.getppid() != launcher_pid:
            say("rank %d: launcher %d is gone, exiting without saving" % (rank, launcher_pid))
            stop_workers(workers)
            return 1
        step += 1

        if args.leak_mb_per_min > 0:
            target = int(args.leak_mb_per_min * MIB * (time.monotonic() - started) / 60.0)
            if target > leaked:
                # bytearray repetition fills every byte, so the pages are really resident.
                leak.append(bytearray(b"\xa5") * (target - leaked))
                leaked = target

        while seen < len(received):
            signum = received[seen]
            seen += 1
            say("rank %d got %s" % (rank, signal.Signals(signum).name))
            if signum == signal.SIGUSR1:
                save_requested = True
            elif signum == signal.SIGTERM and exit_code is None:
                exit_code = EXIT_PREEMPTED
            elif signum == signal.SIGINT and exit_code is None:
                exit_code = 0
        if heartbeat:
            # After the signals are said: a test that sees this line knows that every signal sent
            # before this step began has been reported above it.
            say("rank %d step %d" % (rank, step))

        if exit_code is not None:
            kind = "emergency"
        elif save_requested:
            kind = "manual"
        elif args.save_every > 0 and step % args.save_every == 0:
            kind = "periodic"
        else:
            kind = None
        if kind is not None:
            save(args, rank, world, step, kind)
            save_requested = False
        if exit_code is None and args.max_steps and step >= args.max_steps:
            say("rank %d reached max steps %d" % (rank, args.max_steps))
            exit_code = 0
        if exit_code is not None:
            # Saved and leaving: a later SIGTERM (the launcher stopping every rank once another one exited, as
            # torchrun does) must not kill it while Python shuts down. Finalization puts the default action back
            # for signals with a Python handler, not for ignored ones.
            signal.signal(signal.SIGTERM, signal.SIG_IGN)
            signal.signal(signal.SIGINT, signal.SIG_IGN)
            stop_workers(workers)
            say("rank %d exiting with code %d at step %d" % (rank, exit_code, step))
            return exit_code


def save(args, rank, world, step, kind):
    epoch = round(step / max(1, args.steps_per_epoch), 4)
    if rank != 0:
        say("rank %d saved (shard) at step %d (%s)" % (rank, step, kind))
        return
    name = checkpointing.save_checkpoint(
        args.run_dir,
        step,
        epoch,
        kind,
        args.checkpoint_bytes,
        args.max_checkpoints,
        args.slow_save_seconds,
        extra={"rank": rank, "world_size": world},
    )
    say("rank %d step %d saved %s (%s)" % (rank, step, name, kind))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
