// Where the checkpoint scan looks, as paths relative to the run dir: shared by the scan (scan.ts) and the watcher
// (dir-watch.ts), so that the watcher watches exactly the directories whose changes can change the scan's result.

/** Subdirectories of the run dir that hold checkpoints (besides the run dir itself and Lightning's version dirs). */
export const CHECKPOINT_DIRS = ['checkpoints', 'checkpoint', 'weights'];

/** A directory whose entries the layouts judge: the run dir, a CHECKPOINT_DIRS one, Lightning's version checkpoints. */
function isScanDir(parts: readonly string[]): boolean {
	if (parts.length === 0) return true;
	if (parts.length === 1) return CHECKPOINT_DIRS.includes(parts[0] ?? '');
	return parts.length === 3 && parts[0] === 'lightning_logs' && isVersion(parts[1]) && parts[2] === 'checkpoints';
}

const isVersion = (name: string | undefined): boolean => name?.startsWith('version_') ?? false;

/**
 * Whether a change inside directory `rel` ('' for the run dir, `/`-separated) can change the scan: a scan dir, the
 * way to Lightning's (lightning_logs, its version dirs), a checkpoint in a scan dir (its files say whether it is
 * complete) and one level inside that (Megatron's mp_rank_*, an Orbax item dir). Nothing deeper: a checkpoint's
 * size counts its whole tree, but a save that writes deeper also touches these levels.
 */
export function wantedDir(rel: string): boolean {
	const parts = rel === '' ? [] : rel.split('/');
	if (parts[0] === 'lightning_logs' && (parts.length === 1 || (parts.length === 2 && isVersion(parts[1])))) return true;
	return isScanDir(parts) || isScanDir(parts.slice(0, -1)) || isScanDir(parts.slice(0, -2));
}
