// How far below the run dir the checkpoint search looks, and what it never enters: shared by the search (search.ts)
// and the watchers (dir-watch.ts, and the poller in watch-options.ts), so that they agree on where a checkpoint can be.
// Frameworks put checkpoints where they are told: Lightning's ModelCheckpoint(dirpath=RUN/ckpts), Orbax's
// CheckpointManager(RUN/ckpt), an HF output dir nested as RUN/outputs/checkpoint-N, Lightning's own
// lightning_logs/version_N/checkpoints. No fixed list of names finds them all: the search lists the directories below
// the run dir, and the layouts say which hold checkpoints.

/** Levels below the run dir that the search lists: RUN/logs/lightning_logs/version_0/checkpoints is 4. */
export const MAX_SEARCH_DEPTH = 4;

/**
 * Directories the search lists in one scan, the run dir included. Each is one readdir (names and types, no stat per
 * file), but a tree of thousands of directories (a dataset unpacked in the run dir) would make every rescan a walk of
 * it: past the cap the search stops and says so.
 */
export const MAX_DIRS_LISTED = 200;

/**
 * Names never entered, and why. None of them holds a job's checkpoints, and some are huge:
 *   - `.git`, `.venv`, `.cache`, `.ipynb_checkpoints` and every other hidden directory: tools' own state (a hub
 *     cache's downloaded weights are not the job's saves);
 *   - `venv`, `node_modules`, `__pycache__`, `site-packages`: installed code;
 *   - `data`, `dataset`, `datasets`: training data, often 100k files;
 *   - `wandb`, `mlruns`, `tensorboard`: loggers' run dirs (their copies of a model are artefacts, not the job's
 *     checkpoints; event files are not checkpoints).
 * A directory holding `pyvenv.cfg` (a virtualenv of any name) or `conda-meta` (a conda env) is left too
 * (skippedForContent).
 */
const SKIPPED_NAMES = new Set([
	'venv',
	'node_modules',
	'__pycache__',
	'site-packages',
	'data',
	'dataset',
	'datasets',
	'wandb',
	'mlruns',
	'tensorboard',
]);

/** Whether the search never enters a directory of this name (SKIPPED_NAMES, or hidden). */
export function skippedName(name: string): boolean {
	return name.startsWith('.') || SKIPPED_NAMES.has(name);
}

/** Files that make the directory holding them an environment of installed packages, not a place for checkpoints. */
const ENVIRONMENT_MARKERS = ['pyvenv.cfg', 'conda-meta'];

/** Whether a directory whose names are `names` is a virtualenv or conda env: listed, but not searched. */
export function skippedForContent(names: readonly string[]): boolean {
	return ENVIRONMENT_MARKERS.some(marker => names.includes(marker));
}

/**
 * Whether a directory (`/`-separated, relative to the run dir) can matter to the scan by its path alone: one the
 * search may list (no part of it skipped, MAX_SEARCH_DEPTH levels at most) or a checkpoint in one of the deepest of
 * those (one level more). The inotify watcher uses it until a scan says exactly which directories it listed
 * (dir-watch.ts follow), and for a directory made since; the poller, which knows no scan, uses it alone.
 */
export function wantedDir(rel: string): boolean {
	if (rel === '') return true;
	const parts = rel.split('/');
	return parts.length <= MAX_SEARCH_DEPTH + 1 && !parts.some(skippedName);
}
