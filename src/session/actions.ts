import type {CheckpointWatcher} from '../checkpoints/watch.js';
import type {Settings} from '../config/schema.js';
import {thresholdsFrom} from '../config/thresholds.js';
import {UsageError} from '../core/errors.js';
import type {SaveExpectation, SaveOutcome} from '../checkpoints/save-attribution.js';
import type {Job, RankProcess} from '../core/types.js';
import {analyze} from '../memlog/analyze.js';
import {readSeries} from '../memlog/reader.js';
import {SkippedLines} from '../memlog/skipped-lines.js';
import {formatReport} from '../memlog/report.js';
import {type RankDetail, rankDetail} from '../ranks/detail.js';
import {type SendResult, sendSignal} from '../ranks/send.js';
import {type WhereRead, whereAre} from '../ranks/stacks.js';
import type {SignalName} from '../ranks/signals.js';
import type {ProcReader} from '../system/procfs.js';

// What a view may do outside the screen: signals through ranks/send.ts (the only code that sends),
// saves confirmed by the checkpoint watcher, and the same analysis `--analyze` prints.

export type SignalAction = 'save' | 'emergency';

export interface SessionActions {
	/** The signal an action sends (settings: save → SIGUSR1, emergency → SIGTERM by default). */
	signalOf(action: SignalAction): SignalName;
	/**
	 * Sends through ranks/send.ts to ranks of one job: those whose pids are given, or all of them; never forced.
	 * A pid that is not one of the job's ranks is never a target. `expect`: the save it asks for (else the save and
	 * emergency signals' own), which the run dir's watcher then takes the next save for.
	 */
	send(
		signal: SignalName,
		job: Job,
		pids?: readonly number[],
		expect?: SaveExpectation | null,
	): Promise<readonly SendResult[]>;
	/**
	 * The save a signal asked for, watched in RUN_DIR: the first new checkpoint of the expected kind (or one that
	 * may be it), else what came instead, by the timeout. null = no RUN_DIR to watch.
	 */
	readonly awaitSave: ((sinceMs: number, expect: SaveExpectation) => Promise<SaveOutcome>) | null;
	/** The RUN_DIR watched for saves; null without one. */
	readonly runDir: string | null;
	/** Seconds awaitCheckpoint waits. */
	readonly timeoutS: number;
	/** The analysis of this run's memory log as report lines `width` columns wide, or why there is none. */
	analyze(width: number): Promise<readonly string[]>;
	/**
	 * What /proc shows of one rank now (its argv, cwd, launch variables, workers); null when it is gone. Read here at
	 * once; a rank on another node is read by its agent (fleet/node-detail.ts): a promise, which rejects with the
	 * agent's words when the agent says the rank is gone.
	 */
	rankDetail(rank: RankProcess): RankDetail | null | Promise<RankDetail | null>;
	/**
	 * Where one rank and its DataLoader workers are now (ranks/stacks.ts: /proc, and py-spy --nonblocking when it is
	 * on PATH); only that rank's own processes are read. Absent where the rank is on another node: no agent reads it.
	 */
	readonly rankStacks?: (rank: RankProcess) => Promise<WhereRead>;
}

export interface ActionSources {
	readonly settings: Settings;
	readonly proc: ProcReader;
	/** The run dir's watcher; null without a RUN_DIR. */
	readonly checkpoints: CheckpointWatcher | null;
	/** This run's memory log; null with --no-log. */
	readonly logPath: string | null;
}

/** The save a signal asks for by the settings: the save signal a manual one, the emergency signal an emergency one. */
export function expectationOf(signal: SignalName, settings: Settings): SaveExpectation | null {
	if (signal === settings.saveSignal) return 'manual';
	return signal === settings.emergencySignal ? 'emergency' : null;
}

/** Longest the send waits for that scan: a huge run dir's rescan must not hold an emergency signal back. */
const SCAN_BEFORE_SEND_MS = 1000;

async function scannedBeforeSend(checkpoints: CheckpointWatcher): Promise<void> {
	let timer: NodeJS.Timeout | undefined;
	const capped = new Promise<void>(resolve => {
		timer = setTimeout(resolve, SCAN_BEFORE_SEND_MS);
	});
	await Promise.race([
		checkpoints.rescan().then(
			() => undefined,
			() => undefined,
		),
		capped,
	]);
	clearTimeout(timer);
}

export function sessionActions({settings, proc, checkpoints, logPath}: ActionSources): SessionActions {
	return {
		signalOf: action => (action === 'save' ? settings.saveSignal : settings.emergencySignal),
		// Never forced from a view: a rank without a handler is refused, and the confirm box says so.
		send: async (signal, job, pids, expect) => {
			const chosen = pids && new Set(pids);
			const targets = chosen ? {...job, ranks: job.ranks.filter(r => chosen.has(r.pid))} : job;
			// The run dir scanned right before the signal goes: a save completed a moment before (its file event still
			// debounced) would otherwise be new to the watch and taken for the one asked for.
			if (checkpoints) await scannedBeforeSend(checkpoints);
			const at = Date.now();
			const {results} = sendSignal({job: targets, signal, force: false, proc});
			// The watcher's kinds follow what was sent (checkpoints/signal-saves.ts); here too when an agent sends.
			const asked = expect ?? expectationOf(signal, settings);
			if (checkpoints && asked && results.some(r => r.outcome === 'sent'))
				checkpoints.noteSignal({signal, expect: asked, at, job: job.id});
			return results;
		},
		awaitSave: checkpoints
			? (sinceMs, expect) => checkpoints.awaitSave(sinceMs, settings.timeout * 1000, expect)
			: null,
		runDir: checkpoints?.runDir ?? null,
		timeoutS: settings.timeout,
		analyze: async width => {
			if (!logPath)
				return ['No memory log: traintop runs with --no-log (or "log": false), so there is nothing to analyse.'];
			// Counted, a few kept: constant memory however bad the log is (memlog/skipped-lines.ts).
			const skipped = new SkippedLines();
			try {
				const series = await readSeries([logPath], skipped);
				const analysis = analyze(series, thresholdsFrom(settings));
				return formatReport(analysis, {format: 'text', width, files: [logPath], skipped: skipped.total}).split('\n');
			} catch (error) {
				if (!(error instanceof UsageError)) throw error;
				return [
					error.message,
					'',
					`The memory log gets a record every ${settings.logInterval} s (--log-interval); the first one is written`,
					`${settings.logInterval} s after traintop started. traintop --analyze ${logPath} reads it any time.`,
				];
			}
		},
		rankDetail: rank => rankDetail(rank, proc, Date.now()),
		rankStacks: rank => whereAre([rank], proc),
	};
}
