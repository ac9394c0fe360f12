import type {CliRun} from './run-cli.js';

// The readiness objects a headless `--json` traintop writes (`{"event":"readiness",…}`), and waiting for a verdict.

export interface ReadinessReasonJson {
	readonly code: string;
	readonly effect: string;
	readonly text: string;
	readonly rank?: number | null;
	readonly pid?: number;
	readonly seconds?: number;
	readonly limit_s?: number;
	readonly name?: string;
	readonly signal?: string;
}

export interface ReadinessEvent {
	readonly event: 'readiness';
	readonly job: string;
	readonly verdict: string;
	readonly signal: string;
	readonly reasons: readonly ReadinessReasonJson[];
	readonly save_s: {
		readonly p50: number;
		readonly max: number;
		readonly samples: number;
		readonly slowest: string;
	} | null;
	readonly lead_s: number | null;
	readonly lead_from: string | null;
	readonly work_at_risk_s: number | null;
}

function readinessEvents(stdout: string): ReadinessEvent[] {
	return stdout
		.split('\n')
		.filter(line => line.startsWith('{') && line.includes('"event":"readiness"'))
		.map(line => JSON.parse(line) as ReadinessEvent);
}

/** The first readiness event with this verdict (and what `also` asks), once the headless traintop has written it. */
export async function verdictSeen(
	run: CliRun,
	verdict: string,
	timeoutMs: number,
	also: (event: ReadinessEvent) => boolean = () => true,
): Promise<ReadinessEvent> {
	const found = () => readinessEvents(run.stdout()).find(e => e.verdict === verdict && also(e));
	await run.waitFor(() => found() !== undefined, timeoutMs);
	return found()!;
}

export const reason = (event: ReadinessEvent, code: string): ReadinessReasonJson | undefined =>
	event.reasons.find(r => r.code === code);
