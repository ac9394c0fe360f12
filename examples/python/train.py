#!/usr/bin/env python3
"""An example training loop that handles traintop's signals (see README.md beside it).

    python3 examples/python/train.py --run-dir runs/demo &
    torchrun --nproc_per_node 2 examples/python/train.py --run-dir runs/demo

Trains a tiny torch.nn.Linear with SGD when PyTorch is installed, else a toy model (a list of floats
pulled toward a target) with the standard library only. Either way: SIGUSR1 saves a "manual"
checkpoint and training goes on, SIGTERM saves an "emergency" checkpoint and exits 99, SIGINT saves
one and exits 0. Rank 0 writes the checkpoints (the model state is the same on every rank, as with
DistributedDataParallel); the other ranks acknowledge. On start every rank resumes from the latest
checkpoint, if there is one.
"""

from __future__ import annotations

import argparse
import io
import os
import pickle
import random
import sys
import time
from typing import List, Optional

sys.dont_write_bytecode = True  # no __pycache__ next to the example
from traintop_signals import (  # noqa: E402  (same directory: sys.path[0])
    Request,
    SignalFlags,
    install_handlers,
    latest_checkpoint,
    save_checkpoint,
)

try:
    import torch
    import torch.distributed as dist
except ImportError:  # the toy model needs nothing but the standard library
    torch = None
    dist = None


def say(message: str) -> None:
    """One line per event, in a single write (ranks that share a terminal or pipe never interleave)."""
    sys.stdout.write(message + "\n")
    sys.stdout.flush()


class ToyModel:
    """Stands in for a network without PyTorch: weights move toward a target along a noisy gradient."""

    def __init__(self, size: int = 8, seed: int = 0) -> None:
        rng = random.Random(seed)
        self.target = [rng.uniform(-1, 1) for _ in range(size)]
        self.weights = [0.0] * size
        self.rng = random.Random(seed + 1)

    def train_step(self, lr: float) -> float:
        grads = [2 * (w - t) + self.rng.gauss(0, 0.01) for w, t in zip(self.weights, self.target)]
        self.weights = [w - lr * g for w, g in zip(self.weights, grads)]
        return sum((w - t) ** 2 for w, t in zip(self.weights, self.target)) / len(self.weights)

    def state_bytes(self, step: int) -> bytes:
        return pickle.dumps({"step": step, "weights": self.weights, "rng": self.rng.getstate()})

    def load(self, data: bytes) -> None:
        state = pickle.loads(data)  # our own checkpoint: never unpickle files you did not write
        self.weights = list(state["weights"])
        self.rng.setstate(state["rng"])


class TorchModel:
    """A tiny linear regression: torch.nn.Linear and SGD, state written by torch.save."""

    def __init__(self, size: int = 8, seed: int = 0) -> None:
        torch.manual_seed(seed)
        self.true_weights = torch.randn(size, 1)
        self.model = torch.nn.Linear(size, 1)
        self.optimizer = torch.optim.SGD(self.model.parameters(), lr=0.05)

    def train_step(self, lr: float) -> float:
        for group in self.optimizer.param_groups:
            group["lr"] = lr
        x = torch.randn(32, self.true_weights.shape[0])
        loss = torch.nn.functional.mse_loss(self.model(x), x @ self.true_weights)
        self.optimizer.zero_grad()
        loss.backward()
        # A real job wraps the model in DistributedDataParallel, which all-reduces the gradients here.
        self.optimizer.step()
        return float(loss.item())

    def state_bytes(self, step: int) -> bytes:
        buffer = io.BytesIO()
        torch.save({"step": step, "model": self.model.state_dict(), "optimizer": self.optimizer.state_dict()}, buffer)
        return buffer.getvalue()

    def load(self, data: bytes) -> None:
        state = torch.load(io.BytesIO(data))
        self.model.load_state_dict(state["model"])
        self.optimizer.load_state_dict(state["optimizer"])


TORCH_SAVE_MAGIC = b"PK\x03\x04"
"""torch.save writes a zip archive (PyTorch 1.6 and later); the toy model's state is a plain pickle."""


def written_by(state: bytes) -> str:
    """Which model wrote a checkpoint's state: "torch" or "toy". Neither can read the other's."""
    return "torch" if state[:4] == TORCH_SAVE_MAGIC else "toy"


def other_model_message(rank: int, state_path: str, found: str, backend: str) -> str:
    """Why this run will not resume from a checkpoint the other model wrote, and what to do about it.

    The toy run and the torch run of this example write the same layout, so one --run-dir can hold the other's
    checkpoints (the same command run where PyTorch is and is not installed); torch.load of a pickle fails with
    "Invalid magic number; corrupt file?", and pickle.loads of torch's zip with a bare UnpicklingError.
    """
    if backend == "torch":
        this_run = "the torch model (PyTorch %s is installed for %s)" % (torch.__version__, sys.executable)
        way_out = "or remove that run's checkpoints if you no longer need them"
    else:
        this_run = "the toy model (PyTorch is not installed for %s)" % sys.executable
        way_out = "or run it with the Python that has PyTorch, as the run that wrote it"
    return (
        "rank %d: cannot resume from %s: the %s model wrote it, and this run trains %s. A run dir holds one "
        "model's checkpoints: give this run its own --run-dir, %s.\n" % (rank, state_path, found, this_run, way_out)
    )


def agree(request: Request, world_size: int) -> Request:
    """With torch.distributed up, every rank acts on what any rank received, at the same step.

    traintop signals every rank, but each notices its signal at its own next step; collective saves
    (DCP, FSDP state dicts) would hang if ranks saved at different steps. Without a process group
    (the toy model, or a single process) each rank acts on its own signals.
    """
    if dist is None or world_size < 2 or not dist.is_initialized():
        return request
    exit_code = -1 if request.exit_code is None else request.exit_code
    flags = torch.tensor([int(request.save), int(exit_code == 99), int(exit_code == 0)])
    dist.all_reduce(flags, op=dist.ReduceOp.MAX)
    save, preempted, interrupted = (bool(v) for v in flags.tolist())
    return Request(save=save, exit_code=99 if preempted else 0 if interrupted else None)


def parse_args(argv: List[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description="Example training loop that handles traintop's signals.")
    parser.add_argument("--run-dir", required=True, help="checkpoints go to RUN_DIR/checkpoints")
    parser.add_argument("--steps", type=int, default=0, help="steps to train (0 = until signalled)")
    parser.add_argument("--step-seconds", type=float, default=0.1, help="extra time per step, to watch it")
    parser.add_argument("--save-every", type=int, default=100, help="periodic checkpoint every N steps (0 = none)")
    parser.add_argument("--keep", type=int, default=3, help="complete checkpoints to keep")
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--log-every", type=int, default=100, help="print the loss every N steps (0 = never)")
    return parser.parse_args(argv)


def main(argv: List[str]) -> int:
    args = parse_args(argv)
    rank = int(os.environ.get("RANK", "0"))  # torchrun sets RANK, LOCAL_RANK and WORLD_SIZE
    local_rank = int(os.environ.get("LOCAL_RANK", "0"))  # a GPU job would use cuda:LOCAL_RANK
    world_size = int(os.environ.get("WORLD_SIZE", "1"))

    # First thing: from here on SIGUSR1 no longer kills the process, and traintop can see that.
    flags: SignalFlags = install_handlers()

    if torch is not None and world_size > 1 and "MASTER_ADDR" in os.environ:
        dist.init_process_group("gloo")  # torchrun's environment; "nccl" on GPUs
    model = TorchModel() if torch is not None else ToyModel()
    backend = "torch" if torch is not None else "toy"

    os.makedirs(args.run_dir, exist_ok=True)  # so traintop can watch it before the first save
    step = 0
    resumed: Optional[tuple] = latest_checkpoint(args.run_dir)
    if resumed is not None:
        step, state_path = resumed
        with open(state_path, "rb") as handle:
            state = handle.read()
        if written_by(state) != backend:
            sys.stderr.write(other_model_message(rank, state_path, written_by(state), backend))
            return 2
        model.load(state)
    say("rank %d ready pid %d (local rank %d of %d, %s model)" % (rank, os.getpid(), local_rank, world_size, backend))
    if resumed is not None:
        say("rank %d resumed at step %d from %s" % (rank, step, os.path.dirname(resumed[1])))

    while True:
        loss = model.train_step(args.lr)
        if args.step_seconds > 0:
            time.sleep(args.step_seconds)  # a signal arriving here runs its handler, then sleep goes on
        step += 1
        if args.log_every > 0 and step % args.log_every == 0:
            say("rank %d step %d loss %.6f" % (rank, step, loss))

        # The safe point: the step is done, nothing is half written.
        for name in flags.new_signals():
            say("rank %d got %s" % (rank, name))
        request = agree(flags.take(), world_size)
        kind = request.checkpoint_kind(step, args.save_every)
        if kind is None and args.steps and step >= args.steps:
            kind = "periodic"  # the final model
        if kind is not None:
            if rank == 0:
                name = save_checkpoint(args.run_dir, step, model.state_bytes(step), kind, args.keep)
                say("rank %d step %d saved %s (%s)" % (rank, step, name, kind))
            else:
                say("rank %d step %d acknowledged the %s save (rank 0 writes it)" % (rank, step, kind))
        if request.exit_code is not None or (args.steps and step >= args.steps):
            code = request.exit_code if request.exit_code is not None else 0
            say("rank %d exiting with code %d at step %d" % (rank, code, step))
            if dist is not None and dist.is_initialized():
                dist.destroy_process_group()
            return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
