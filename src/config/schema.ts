import {z} from 'zod';
import {parseSignalName, type SignalName} from '../ranks/signals.js';
import {gpuThresholdsSchema} from './gpu-thresholds.js';
import {listenSchema, notifyEventsSchema, webhookSchema} from './notify-settings.js';
import {DEFAULT_NOTIFY_EVENTS, type NotifyEventName} from '../notify/event-names.js';

// The settings a user can give in a config file (JSON, camelCase keys) or as flags (kebab-case).
// Defaults are the seed tool's (memory_monitor.py / training_config.py): RAM 85 %, GPU 90 %,
// swap 50 %, a log record every 30 s.

const seconds = (min: number, max: number) =>
	z
		.number({error: 'must be a number of seconds'})
		.min(min, `must be at least ${min} (seconds)`)
		.max(max, `must be at most ${max} (seconds)`);

const percent = z
	.number({error: 'must be a number (percent)'})
	.gt(0, 'must be above 0 (a percentage)')
	.max(100, 'must be at most 100 (a percentage)');

const points = (max: number) =>
	z
		.number({error: 'must be a number (percentage points)'})
		.min(0, 'must be 0 or more (percentage points)')
		.max(max, `must be at most ${max} (percentage points)`);

const signalName = z
	.string({error: 'must be a signal name such as SIGUSR1, USR1 or 10'})
	.refine(text => parseSignalName(text) !== null, 'must be a signal name such as SIGUSR1, USR1 or 10')
	.transform(text => parseSignalName(text)!);

export const settingsShape = {
	interval: seconds(0.1, 3600),
	logInterval: seconds(0.1, 86_400),
	logFile: z.string({error: 'must be a file path (string)'}).min(1, 'must not be empty'),
	log: z.boolean({error: 'must be true or false'}),
	ramThreshold: percent,
	gpuThreshold: percent,
	gpuThresholds: gpuThresholdsSchema,
	swapThreshold: percent,
	warnMargin: points(99),
	hysteresis: points(50),
	gpuProcessInterval: z
		.number({error: 'must be a number of seconds'})
		.min(0, 'must be 0 (off) or more (seconds)')
		.max(3600, 'must be at most 3600 (seconds)'),
	nvidiaSmi: z.string({error: 'must be a command or path (string)'}).min(1, 'must not be empty'),
	saveSignal: signalName,
	emergencySignal: signalName,
	ranksInterval: seconds(0.5, 3600),
	stallAfter: seconds(1, 86_400),
	readonly: z.boolean({error: 'must be true or false'}),
	keep: z
		.number({error: 'must be a whole number of checkpoints'})
		.int('must be a whole number of checkpoints')
		.min(1, 'must be at least 1 (checkpoints kept)'),
	poll: z
		.number({error: 'must be a number of seconds'})
		.min(0, 'must be 0 (off: inotify) or more (seconds)')
		.max(3600, 'must be at most 3600 (seconds)'),
	timeout: seconds(1, 86_400),
	grace: z
		.number({error: 'must be a number of seconds'})
		.gt(0, 'must be above 0 (seconds)')
		.max(86_400, 'must be at most 86400 (seconds)'),
	maxWorkAtRisk: z
		.number({error: 'must be a number of seconds'})
		.gt(0, 'must be above 0 (seconds)')
		.max(31_536_000, 'must be at most 31536000 (seconds)'),
	hangAfter: seconds(1, 86_400),
	progressFile: z.string({error: 'must be a file path (string)'}).min(1, 'must not be empty'),
	ncclRas: z
		.string({error: 'must be HOST:PORT or off'})
		.refine(text => text === 'off' || /^[^\s:]+:\d{1,5}$/.test(text), 'must be HOST:PORT (127.0.0.1:28028) or off'),
	notifyCommand: z.string({error: 'must be a shell command (string)'}).min(1, 'must not be empty'),
	webhook: webhookSchema,
	bell: z.boolean({error: 'must be true or false'}),
	notifyEvents: notifyEventsSchema,
	notifyCooldown: z
		.number({error: 'must be a number of seconds'})
		.min(0, 'must be 0 or more (seconds)')
		.max(86_400, 'must be at most 86400 (seconds)'),
	notifyTimeout: seconds(0.5, 600),
	listen: listenSchema,
} as const;

/** What a config file may hold: any subset of the settings, and nothing else. */
export const settingsInputSchema = z.strictObject(settingsShape).partial();

export type SettingsInput = z.infer<typeof settingsInputSchema>;

export type SettingKey = keyof typeof settingsShape;

export interface Settings {
	readonly interval: number;
	readonly logInterval: number;
	/** null = the default place (RUN_DIR/traintop-memory.jsonl, else ./traintop-memory.jsonl). */
	readonly logFile: string | null;
	readonly log: boolean;
	readonly ramThreshold: number;
	readonly gpuThreshold: number;
	/** GPU uuid → its own critical percent (--gpu-thresholds, a cluster.yaml's reserve factors); others: gpuThreshold. */
	readonly gpuThresholds: ReadonlyMap<string, number>;
	readonly swapThreshold: number;
	readonly warnMargin: number;
	readonly hysteresis: number;
	readonly gpuProcessInterval: number;
	readonly nvidiaSmi: string;
	/** `signal save` and the TUI's save key: SIGUSR1, what Lightning and the seed tooling catch. */
	readonly saveSignal: SignalName;
	/** `signal emergency`: SIGTERM, what a batch scheduler sends before the end (save and exit for requeue). */
	readonly emergencySignal: SignalName;
	/** Seconds between rank scans. */
	readonly ranksInterval: number;
	/** A rank with no CPU time for this many seconds is flagged stalled. */
	readonly stallAfter: number;
	/** No action at all: signals are refused. */
	readonly readonly: boolean;
	/** keep-N retention to plan with; null = the job's own (seed metadata max_checkpoints) if any. */
	readonly keep: number | null;
	/** Poll the run dir every this many seconds instead of inotify (network filesystems); 0 = off. */
	readonly poll: number;
	/** `signal … --wait`: seconds to wait for the new checkpoint. */
	readonly timeout: number;
	/** Seconds from a preemption's SIGTERM to the kill that the user knows of (a cloud's spot notice); null: not given. */
	readonly grace: number | null;
	/** Seconds of training the user accepts losing to a preemption; null: twice the save cadence. */
	readonly maxWorkAtRisk: number | null;
	/** Seconds without progress before a job is stalled (at least 3 × its step time). */
	readonly hangAfter: number;
	/** A log file the job appends to as it trains, read as a progress signal; null: none named. */
	readonly progressFile: string | null;
	/** Where NCCL's RAS service answers (HOST:PORT), or 'off'. */
	readonly ncclRas: string;
	/** A shell command run once per notice, the notice as one JSON line on stdin; null: none. */
	readonly notifyCommand: string | null;
	/** An http(s) URL each notice is POSTed to as JSON (with `text` for Slack-compatible receivers); null: none. */
	readonly webhook: string | null;
	/** The TUI rings the terminal's bell on a CRIT notice. */
	readonly bell: boolean;
	/** Which events notify (notify/event-names.ts). */
	readonly notifyEvents: readonly NotifyEventName[];
	/** Seconds an episode's condition must stay clear before its resolve is sent; a return inside it is the same episode. */
	readonly notifyCooldown: number;
	/** Seconds the command may run, and each webhook attempt may take, before it is killed or abandoned. */
	readonly notifyTimeout: number;
	/** HOST:PORT the Prometheus exporter serves /metrics on (127.0.0.1 when only a port is given); null: off. */
	readonly listen: {readonly host: string; readonly port: number} | null;
}

export const DEFAULT_SETTINGS: Settings = {
	interval: 1,
	logInterval: 30,
	logFile: null,
	log: true,
	ramThreshold: 85,
	gpuThreshold: 90,
	gpuThresholds: new Map(),
	swapThreshold: 50,
	warnMargin: 10,
	hysteresis: 2,
	gpuProcessInterval: 5,
	nvidiaSmi: 'nvidia-smi',
	saveSignal: 'SIGUSR1',
	emergencySignal: 'SIGTERM',
	ranksInterval: 2,
	stallAfter: 60,
	readonly: false,
	keep: null,
	poll: 0,
	timeout: 60,
	grace: null,
	maxWorkAtRisk: null,
	hangAfter: 300,
	progressFile: null,
	ncclRas: '127.0.0.1:28028',
	notifyCommand: null,
	webhook: null,
	bell: false,
	notifyEvents: DEFAULT_NOTIFY_EVENTS,
	notifyCooldown: 300,
	notifyTimeout: 10,
	listen: null,
};

export const DEFAULT_LOG_FILE_NAME = 'traintop-memory.jsonl';
