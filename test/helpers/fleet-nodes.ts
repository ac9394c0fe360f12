import {chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs';
import {tmpdir} from 'node:os';
import path from 'node:path';
import {afterAll} from 'vitest';
import {CLI} from './dist.js';

// "Nodes" on this machine for the many-node viewer: a replaceable ssh command (as GIT_SSH_COMMAND is) that runs the
// remote command here, and `traintop` on the "node"'s PATH being this build. A node can be given something else
// to run in its agent's place (FAKE_AGENT_<host>: a shell command), to play a broken or hostile agent.

export interface FleetNodes {
	readonly dir: string;
	/** The --ssh-command to give. */
	readonly ssh: string;
	/** PATH with this build as `traintop` first. */
	readonly path: string;
}

/** ssh's arguments: [-l user] [-o opt] host 'remote command'. */
const FAKE_SSH = `#!/bin/sh
while [ "$1" = "-l" ] || [ "$1" = "-o" ]; do shift 2; done
host="$1"; shift
instead=$(eval echo "\\"\\$FAKE_AGENT_$host\\"")
if [ -n "$instead" ]; then exec sh -c "$instead"; fi
extra=$(eval echo "\\$FAKE_ARGS_$host")
exec sh -c "$* $extra"
`;

export function fleetNodes(prefix: string): FleetNodes {
	const dir = mkdtempSync(path.join(tmpdir(), prefix));
	const ssh = path.join(dir, 'fake-ssh');
	writeFileSync(ssh, FAKE_SSH);
	chmodSync(ssh, 0o755);
	const bin = path.join(dir, 'bin');
	mkdirSync(bin);
	writeFileSync(path.join(bin, 'traintop'), `#!/bin/sh\nexec ${process.execPath} ${CLI} "$@"\n`);
	chmodSync(path.join(bin, 'traintop'), 0o755);
	return {dir, ssh, path: `${bin}:${process.env.PATH}`};
}

/** fleetNodes for one test file: made as the file is collected, removed after its tests. */
export function fleetNodesForThisFile(prefix: string): FleetNodes {
	const nodes = fleetNodes(prefix);
	afterAll(() => {
		rmSync(nodes.dir, {recursive: true, force: true});
	});
	return nodes;
}

/**
 * Whether `pid` is still running: kill 0 succeeds and it is not a zombie (one whose parent died waits for PID 1 to
 * reap it, which in a container can take a while: it is gone all the same).
 */
export function alive(pid: number): boolean {
	try {
		process.kill(pid, 0);
	} catch {
		return false;
	}
	try {
		const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
		return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
	} catch {
		return false;
	}
}
