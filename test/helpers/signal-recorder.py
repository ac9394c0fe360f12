# A process that records every signal it receives: one name per line appended to argv[1]. It handles USR1, USR2,
# TERM, HUP and INT (so none of them ends it: every one that arrives is written down), then writes its pid to
# argv[1].pid (through a rename: a reader never sees half of it) and sleeps until killed. Its other arguments are
# ignored: a test puts a tag there to find it with --match.
import os
import signal
import sys
import time

log = sys.argv[1]


def record(number, _frame):
    with open(log, "a") as out:
        out.write(signal.Signals(number).name + "\n")


for sig in (signal.SIGUSR1, signal.SIGUSR2, signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
    signal.signal(sig, record)
with open(log + ".pid.tmp", "w") as out:
    out.write(str(os.getpid()))
os.rename(log + ".pid.tmp", log + ".pid")
while True:
    time.sleep(1)
