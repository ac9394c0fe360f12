// How event-driven rescans of a run dir are spaced (CheckpointWatcher): by what the last one cost, so that an event
// storm on a large run dir (a rename loop over 100k files, issue 17) costs a bounded share of the disk and a CPU.

/** This process's CPU time (all threads: the fs calls run on libuv's pool), in ms. */
export function cpuMs(): number {
	const {user, system} = process.cpuUsage();
	return (user + system) / 1000;
}

/** The longest wait between event-driven rescans, however costly: a new checkpoint shows within this. */
const MAX_REST_MS = 15_000;

/**
 * How long after a scan the next event-driven one waits: as long as the scan took (the disk idle half the time, which
 * matters on NFS, where a scan waits more than it computes) and nine times its CPU time (a tenth of a CPU: a rename
 * storm on 100k files cost 58–85 % when only the first held), within MAX_REST_MS.
 */
export function restAfter(scan: {readonly took: number; readonly cpu: number}): number {
	return Math.min(Math.max(scan.took, scan.cpu * 9), MAX_REST_MS);
}
