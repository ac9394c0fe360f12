"""A torchrun-shaped agent for the demo training job (Python 3 standard library only).

Starts N ranks (rank.py), each the leader of its own session and process group with torchrun's
worker environment. SIGTERM, SIGINT, SIGHUP and SIGQUIT are forwarded to every rank's process group
(os.killpg, same signal); after --shutdown-timeout seconds the survivors' groups get SIGKILL. SIGUSR1
and SIGUSR2 are not handled: they kill the launcher, as they kill torchrun, and the ranks then notice
that their parent is gone and exit by themselves. A rank that fails (a non-zero exit, or killed by a signal) makes
the launcher stop every other rank the same way (SIGTERM to its group, SIGKILL after --shutdown-timeout), as
torchrun's elastic agent does when a worker fails and no restart is left: one rank's death ends the job. The
launcher exits when every rank has exited, with rank 0's exit code (1 when rank 0 was killed by a signal).
"""

import argparse
import os
import resource
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
RANK_PY = os.path.join(HERE, "rank.py")
# Variables that would make the launcher itself look like a rank to a monitor.
STRIPPED = ("RANK", "LOCAL_RANK", "SLURM_PROCID", "SLURM_LOCALID")
FORWARDED = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGQUIT)
POLL_SECONDS = 0.05


def say(message):
    # One write per line (see rank.py): the ranks print to the same pipe.
    sys.stdout.write("launcher: " + message + "\n")
    sys.stdout.flush()


def rank_list(values):
    ranks = set()
    for value in values or []:
        for part in str(value).split(","):
            if part.strip():
                ranks.add(int(part))
    return ranks


def parse_args(argv):
    parser = argparse.ArgumentParser(description="Demo training job: a torchrun-shaped launcher of rank.py processes.")
    parser.add_argument("--run-dir", required=True, help="the ranks' working directory; checkpoints go to RUN_DIR/checkpoints")
    parser.add_argument("--ranks", type=int, default=4)
    parser.add_argument("--workers", type=int, default=2, help="pt_data_worker children per rank")
    parser.add_argument("--step-seconds", type=float, default=0.2)
    parser.add_argument("--save-every", type=int, default=50, help="periodic checkpoint every K steps (0: never)")
    parser.add_argument("--max-checkpoints", type=int, default=3)
    parser.add_argument("--max-steps", type=int, default=0, help="ranks exit 0 on reaching this step, resumed steps included (0: unlimited)")
    parser.add_argument("--steps-per-epoch", type=int, default=100)
    parser.add_argument("--checkpoint-bytes", type=int, default=256 * 1024, help="size of state.pt")
    parser.add_argument("--slow-save-seconds", type=float, default=0.0, help="pause inside each save, before the rename")
    parser.add_argument("--leak-mb-per-min", type=float, default=0.0)
    parser.add_argument("--leak-rank", action="append", help="ranks that leak (repeatable or comma list; default all)")
    parser.add_argument("--no-usr1-rank", action="append", help="ranks without a SIGUSR1 handler (repeatable or comma list)")
    parser.add_argument("--shutdown-timeout", type=float, default=30.0)
    parser.add_argument("--master-port", type=int, default=29500)
    parser.add_argument("--exit-with-parent", action="store_true", help="shut down (as on SIGTERM) when the launcher's parent dies")
    return parser.parse_args(argv)


def rank_argv(args, rank, no_usr1, leak_ranks):
    argv = [
        sys.executable,
        RANK_PY,
        "--run-dir", args.run_dir,
        "--workers", str(args.workers),
        "--step-seconds", str(args.step_seconds),
        "--save-every", str(args.save_every),
        "--max-checkpoints", str(args.max_checkpoints),
        "--max-steps", str(args.max_steps),
        "--steps-per-epoch", str(args.steps_per_epoch),
        "--checkpoint-bytes", str(args.checkpoint_bytes),
        "--slow-save-seconds", str(args.slow_save_seconds),
    ]
    if args.leak_mb_per_min > 0 and (leak_ranks is None or rank in leak_ranks):
        argv += ["--leak-mb-per-min", str(args.leak_mb_per_min)]
    if rank in no_usr1:
        argv.append("--no-usr1")
    return argv


def rank_env(base, args, rank, run_id):
    env = dict(base)
    env.update({
        "RANK": str(rank),
        "LOCAL_RANK": str(rank),
        "WORLD_SIZE": str(args.ranks),
        "LOCAL_WORLD_SIZE": str(args.ranks),
        "GROUP_RANK": "0",
        "GROUP_WORLD_SIZE": "1",
        "ROLE_RANK": str(rank),
        "ROLE_NAME": "default",
        "ROLE_WORLD_SIZE": str(args.ranks),
        "MASTER_ADDR": "127.0.0.1",
        "MASTER_PORT": str(args.master_port),
        "TORCHELASTIC_RUN_ID": run_id,
        "TORCHELASTIC_RESTART_COUNT": "0",
        "TORCHELASTIC_MAX_RESTARTS": "0",
        "TORCH_NCCL_ASYNC_ERROR_HANDLING": "1",
        "OMP_NUM_THREADS": base.get("OMP_NUM_THREADS", "1"),
        "PYTHONDONTWRITEBYTECODE": "1",
    })
    return env


def killpg(pid, signum):
    try:
        os.killpg(pid, signum)
    except (ProcessLookupError, PermissionError):
        pass


def describe(code):
    if code < 0:
        try:
            return "was killed by " + signal.Signals(-code).name
        except ValueError:
            return "was killed by signal %d" % -code
    return "exited with code %d" % code


def main(argv):
    # /proc/PID/environ shows the environment at exec time: removing a variable from os.environ would not hide
    # it from a monitor, so start again without them.
    if any(name in os.environ for name in STRIPPED):
        env = {k: v for k, v in os.environ.items() if k not in STRIPPED}
        os.execve(sys.executable, [sys.executable, os.path.abspath(__file__)] + argv, env)

    args = parse_args(argv)
    args.run_dir = os.path.abspath(args.run_dir)
    os.makedirs(args.run_dir, exist_ok=True)
    no_usr1 = rank_list(args.no_usr1_rank)
    leak_ranks = rank_list(args.leak_rank) if args.leak_rank else None
    run_id = "traintop-demo-%d" % os.getpid()
    parent = os.getppid()

    # SIGQUIT is forwarded and kills a rank with a core dump: keep cores out of the run directory.
    try:
        _, hard = resource.getrlimit(resource.RLIMIT_CORE)
        resource.setrlimit(resource.RLIMIT_CORE, (0, hard))
    except (ValueError, OSError):
        pass

    pending = []

    def on_signal(signum, _frame):
        pending.append(signum)

    for signum in FORWARDED:
        signal.signal(signum, on_signal)

    say("pid %d run id %s world size %d master 127.0.0.1:%d run dir %s"
        % (os.getpid(), run_id, args.ranks, args.master_port, args.run_dir))
    alive = {}
    for rank in range(args.ranks):
        process = subprocess.Popen(
            rank_argv(args, rank, no_usr1, leak_ranks),
            env=rank_env(os.environ, args, rank, run_id),
            cwd=args.run_dir,
            stdin=subprocess.DEVNULL,
            start_new_session=True,  # like torchrun: each rank leads its own session and process group
        )
        alive[rank] = process
        say("started rank %d pid %d" % (rank, process.pid))

    codes = {}
    shutting_down = False
    deadline = None
    killed = False
    while alive:
        for rank, process in list(alive.items()):
            code = process.poll()
            if code is not None:
                del alive[rank]
                codes[rank] = code
                say("rank %d pid %d %s" % (rank, process.pid, describe(code)))
                if code != 0 and not shutting_down and alive:
                    # torchrun's agent: a failed worker fails the group; with no restart left it stops the rest.
                    shutting_down = True
                    say("rank %d failed: stopping the other %d ranks (SIGTERM), as torchrun does" % (rank, len(alive)))
                    for other in alive.values():
                        killpg(other.pid, signal.SIGTERM)
                    deadline = time.monotonic() + args.shutdown_timeout
        if not alive:
            break
        if args.exit_with_parent and not shutting_down and os.getppid() != parent:
            say("parent %d is gone" % parent)
            pending.append(signal.SIGTERM)
        while pending:
            signum = pending.pop(0)
            name = signal.Signals(signum).name
            if shutting_down:
                say("got %s while shutting down" % name)
                continue
            shutting_down = True
            say("got %s, forwarding to %d ranks" % (name, len(alive)))
            for process in alive.values():
                killpg(process.pid, signum)
            deadline = time.monotonic() + args.shutdown_timeout
        if deadline is not None and not killed and time.monotonic() >= deadline:
            say("shutdown timeout (%gs): SIGKILL to %d ranks" % (args.shutdown_timeout, len(alive)))
            for process in alive.values():
                killpg(process.pid, signal.SIGKILL)
            killed = True
        time.sleep(POLL_SECONDS)

    code = codes.get(0)
    exit_code = code if code is not None and code >= 0 else 1
    say("exiting with code %d" % exit_code)
    return exit_code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
