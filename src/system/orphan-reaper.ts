// Children die with traintop, even when traintop is killed with SIGKILL and none of its own code runs any more.
// A hung nvidia-smi never writes, so no broken pipe ends it: it lived on as an orphan, one per kill.
//
// How, without a native build step: one small `sh` per traintop (the reaper), in its own session so that the
// terminal's SIGHUP/SIGINT do not reach it, reads the process groups traintop started on a pipe (`+PGID`, `-PGID`).
// The pipe's only writer is traintop (Node opens its pipes close-on-exec, so no child inherits it): when traintop
// dies, however it dies, the reaper reads EOF and sends each group still listed SIGTERM, then SIGKILL a second later
// (SIGTERM first: srun ends its job step on it, while a SIGKILLed srun leaves the step's tasks running). On a normal
// exit the list is empty and it just ends. PR_SET_PDEATHSIG would need native code or util-linux's setpriv, and
// would reach only the direct child, not a helper that inherited its pipes.

import {spawn, type ChildProcess} from 'node:child_process';

const REAPER_SCRIPT = `
groups=' '
while IFS= read -r line; do
	case $line in
	+*) groups="$groups\${line#+} " ;;
	-*) g=\${line#-}; case $groups in *" $g "*) groups="\${groups%% $g *} \${groups#* $g }" ;; esac ;;
	esac
done
[ -z "\${groups# }" ] && exit 0
for g in $groups; do kill -s TERM -- "-$g" 2>/dev/null; done
sleep 1
for g in $groups; do kill -s KILL -- "-$g" 2>/dev/null; done
`;

/** The reaper; null before the first group, or for good once it could not be started (then nothing is guarded). */
let reaper: ChildProcess | null = null;
let unavailable = process.platform === 'win32';

function started(): ChildProcess | null {
	if (reaper !== null || unavailable) return reaper;
	try {
		reaper = spawn('/bin/sh', ['-c', REAPER_SCRIPT], {
			// Its own session: no controlling terminal, so closing traintop's terminal does not end it first.
			detached: true,
			stdio: ['pipe', 'ignore', 'ignore'],
			env: {PATH: process.env.PATH ?? '/usr/bin:/bin'},
		});
	} catch {
		unavailable = true;
		return null;
	}
	const stopUsing = (): void => {
		unavailable = true;
		reaper = null;
	};
	reaper.on('error', stopUsing);
	reaper.on('exit', stopUsing);
	reaper.stdin?.on('error', stopUsing);
	// Neither the reaper nor its pipe may keep traintop's event loop alive.
	reaper.unref();
	(reaper.stdin as unknown as {unref?: () => void} | null)?.unref?.();
	return reaper;
}

/**
 * Starts the reaper now, before any child: started at the first child instead, its own start (a fork and an exec,
 * long on a loaded machine) left that child unguarded, and a traintop killed meanwhile left it running (a hung squeue,
 * seen in 2 of 8 tries under load).
 */
export function prepareReaper(): void {
	started();
}

/** From now on, the group led by `pgid` gets SIGTERM then SIGKILL if traintop dies before unwatchGroup(pgid). */
export function watchGroup(pgid: number | undefined): void {
	if (pgid === undefined) return;
	started()?.stdin?.write(`+${pgid}\n`);
}

/** The group is gone (or ended by traintop itself): the reaper must not signal that number any more. */
export function unwatchGroup(pgid: number | undefined): void {
	if (pgid === undefined || reaper === null) return;
	reaper.stdin?.write(`-${pgid}\n`);
}
