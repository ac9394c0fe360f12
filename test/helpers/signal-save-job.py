# A training job's rank that saves when asked, the ways real jobs record it (test/helpers/signal-save-job.ts).
# argv: RUN_DIR LAYOUT ON_SIGNAL [TAG]
#   LAYOUT seed:    checkpoints/checkpoint_step_<N>/ with a meta.json {"step", "reason"|"kind"}, renamed into place
#                   from a .tmp directory, as the seed tool writes it.
#   LAYOUT generic: ckpt_step<N>.pt, renamed into place from a .tmp file (torch.save through a temporary name).
#   ON_SIGNAL reason-signal: on SIGUSR1 or SIGTERM, save at the next step with reason "signal" (SIGTERM: then exit
#                            99), as the runs of issue 27 recorded it;
#             step-name:     the same without any record of why (generic: the file's name says only its step);
#             ignore:        SIGUSR1 and SIGTERM are handled and nothing is saved for them.
#   PERIODIC=<every> (environment): a periodic save every <every> steps too (seed: "kind": "periodic"); a save asked
#   for never lands on such a step, so that it is off the cadence.
# Steps take STEP_SECONDS (default 0.005). Prints "ready" once its handlers are installed, "saved NAME" after each save.
import json
import os
import signal
import sys
import time

run_dir, layout, on_signal = sys.argv[1], sys.argv[2], sys.argv[3]
os.chdir(run_dir)
every = int(os.environ.get("PERIODIC", "0"))
step_seconds = float(os.environ.get("STEP_SECONDS", "0.005"))
asked = []


def on(number, _frame):
    asked.append(number)


signal.signal(signal.SIGUSR1, on)
signal.signal(signal.SIGTERM, on)


def save(step, why):
    if layout == "seed":
        os.makedirs("checkpoints", exist_ok=True)
        name = "checkpoint_step_%d" % step
        tmp = os.path.join("checkpoints", name + ".tmp")
        os.makedirs(tmp)
        with open(os.path.join(tmp, "state.bin"), "wb") as out:
            out.write(os.urandom(4096))
        with open(os.path.join(tmp, "meta.json"), "w") as out:
            json.dump({"step": step, **why}, out)
        os.rename(tmp, os.path.join("checkpoints", name))
    else:
        name = "ckpt_step%d.pt" % step
        with open(name + ".tmp", "wb") as out:
            out.write(b"\x80\x02" + os.urandom(4096))
        os.rename(name + ".tmp", name)
    print("saved", name, flush=True)


print("ready", flush=True)
step = 0
while True:
    time.sleep(step_seconds)
    step += 1
    if asked:
        number = asked.pop(0)
        if on_signal != "ignore":
            if every and step % every == 0:
                step += 1
            save(step, {"reason": "signal"} if on_signal == "reason-signal" else {})
            if number == signal.SIGTERM:
                sys.exit(99)
            continue
    if every and step % every == 0:
        save(step, {"kind": "periodic"} if layout == "seed" else {})
