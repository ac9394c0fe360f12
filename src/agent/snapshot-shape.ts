import {jobMemoryError} from './job-memory-shape.js';

// A snapshot message's shape: the fields every view reads first, checked by hand. The snapshot's body is the core's
// own type, made by the same traintop code on the other end, and its values were already checked one by one
// (wire-values.ts); what is left is that the fields a view reads without looking are there, of their type. A zod
// schema said the same at 7 % of the many-node viewer's main thread (64 nodes a second, each parse copying the
// snapshot's top level); this reads each field once and copies nothing.

import {gpuHealthShapeError} from './gpu-health-shape.js';
import {gpuUnseenShapeError, hostConsumersShapeError} from './unseen-shape.js';

type Fields = Readonly<Record<string, unknown>>;

const isObject = (value: unknown): value is Fields =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

const nonEmpty = (value: unknown): boolean => typeof value === 'string' && value.length > 0;

/** The first field out of shape: `at snapshot.tick: an integer`; null when every one is as the views read it. */
function shapeError(message: Fields): string | null {
	if (!nonEmpty(message.host)) return 'at host: a non-empty string';
	const snapshot = message.snapshot;
	if (!isObject(snapshot)) return 'at snapshot: an object';
	if (typeof snapshot.time !== 'number' || !Number.isFinite(snapshot.time)) return 'at snapshot.time: a finite number';
	if (!nonEmpty(snapshot.host)) return 'at snapshot.host: a non-empty string';
	if (!Number.isInteger(snapshot.tick)) return 'at snapshot.tick: an integer';
	if (!isObject(snapshot.metrics)) return 'at snapshot.metrics: an object';
	if (!isObject(snapshot.gpu) || typeof snapshot.gpu.status !== 'string') return 'at snapshot.gpu.status: a string';
	const health = gpuHealthShapeError(snapshot.gpu);
	if (health !== null) return health;
	if (!Array.isArray(snapshot.newAlerts)) return 'at snapshot.newAlerts: an array';
	if (!Array.isArray(snapshot.events)) return 'at snapshot.events: an array';
	return (
		readinessError(snapshot.readiness) ??
		progressError(snapshot.progress) ??
		jobMemoryError(snapshot.jobMemory) ??
		gpuUnseenShapeError(snapshot.gpuUnseen) ??
		hostConsumersShapeError(snapshot.hostConsumers)
	);
}

const PROGRESS: ReadonlySet<unknown> = new Set(['progressing', 'stalled', 'hung', 'unknown']);

/** Each job's progress (a slow part), as the views read it: job, verdict, the odd and waiting ranks, evidence. */
function progressError(progress: unknown): string | null {
	if (progress === undefined) return null;
	if (!Array.isArray(progress)) return 'at snapshot.progress: an array';
	for (const [i, p] of progress.entries()) {
		if (!isObject(p) || !nonEmpty(p.job)) return `at snapshot.progress[${i}].job: a non-empty string`;
		if (!PROGRESS.has(p.verdict)) return `at snapshot.progress[${i}].verdict: progressing, stalled, hung or unknown`;
		for (const list of ['odd', 'waiting', 'evidence'] as const)
			if (!Array.isArray(p[list]) || !p[list].every(isObject))
				return `at snapshot.progress[${i}].${list}: an array of objects`;
	}
	return null;
}

const VERDICTS: ReadonlySet<unknown> = new Set(['ready', 'at-risk', 'not-ready', 'unknown']);

/** Each job's readiness (a slow part: absent when unchanged), as the views read it: job, verdict, reasons. */
function readinessError(readiness: unknown): string | null {
	if (readiness === undefined) return null;
	if (!Array.isArray(readiness)) return 'at snapshot.readiness: an array';
	for (const [i, r] of readiness.entries()) {
		if (!isObject(r) || !nonEmpty(r.job)) return `at snapshot.readiness[${i}].job: a non-empty string`;
		if (!VERDICTS.has(r.verdict)) return `at snapshot.readiness[${i}].verdict: ready, at-risk, not-ready or unknown`;
		if (!Array.isArray(r.reasons) || !r.reasons.every(isObject))
			return `at snapshot.readiness[${i}].reasons: an array of objects`;
	}
	return null;
}

/** A snapshot message as checked: its kind, host and snapshot only (protocol.ts types the snapshot). */
interface Shaped {
	readonly kind: 'snapshot';
	readonly host: string;
	readonly snapshot: Fields;
}

/** A parsed line of kind `snapshot` as the message it is, or why not. */
export function snapshotMessage(
	message: Fields,
): {readonly ok: true; readonly value: Shaped} | {readonly ok: false; readonly error: string} {
	const error = shapeError(message);
	if (error !== null) return {ok: false, error: `not an agent message ${error}`};
	return {ok: true, value: {kind: 'snapshot', host: message.host as string, snapshot: message.snapshot as Fields}};
}
