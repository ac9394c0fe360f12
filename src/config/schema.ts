import {z} from 'zod';

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

export const settingsShape = {
	interval: seconds(0.1, 3600),
	logInterval: seconds(0.1, 86_400),
	logFile: z.string({error: 'must be a file path (string)'}).min(1, 'must not be empty'),
	log: z.boolean({error: 'must be true or false'}),
	ramThreshold: percent,
	gpuThreshold: percent,
	swapThreshold: percent,
	warnMargin: points(99),
	hysteresis: points(50),
	gpuProcessInterval: z
		.number({error: 'must be a number of seconds'})
		.min(0, 'must be 0 (off) or more (seconds)')
		.max(3600, 'must be at most 3600 (seconds)'),
	nvidiaSmi: z.string({error: 'must be a command or path (string)'}).min(1, 'must not be empty'),
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
	readonly swapThreshold: number;
	readonly warnMargin: number;
	readonly hysteresis: number;
	readonly gpuProcessInterval: number;
	readonly nvidiaSmi: string;
}

export const DEFAULT_SETTINGS: Settings = {
	interval: 1,
	logInterval: 30,
	logFile: null,
	log: true,
	ramThreshold: 85,
	gpuThreshold: 90,
	swapThreshold: 50,
	warnMargin: 10,
	hysteresis: 2,
	gpuProcessInterval: 5,
	nvidiaSmi: 'nvidia-smi',
};

export const DEFAULT_LOG_FILE_NAME = 'traintop-memory.jsonl';
