// The shape of the memory parts a view words without looking (format/gpu-unseen.ts, format/host-consumers.ts), as
// an agent sends them: checked by hand like the rest of a snapshot (agent/snapshot-shape.ts). Absent or null is
// "not judged" and passes.

type Fields = Readonly<Record<string, unknown>>;

const isObject = (value: unknown): value is Fields =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

const sizeOrNull = (value: unknown): boolean => value === null || (typeof value === 'number' && Number.isFinite(value));

const REASONS: ReadonlySet<unknown> = new Set(['not-visible', 'gone', 'zombie', 'd-state']);

/** The first field of `snapshot.gpuUnseen` out of shape; null when it is as the views read it. */
export function gpuUnseenShapeError(unseen: unknown): string | null {
	if (unseen === undefined || unseen === null) return null;
	if (!isObject(unseen) || !Array.isArray(unseen.gpus)) return 'at snapshot.gpuUnseen.gpus: an array';
	if (unseen.pidNamespace !== null && typeof unseen.pidNamespace !== 'boolean')
		return 'at snapshot.gpuUnseen.pidNamespace: a boolean or null';
	for (const [i, gpu] of unseen.gpus.entries()) {
		const at = `at snapshot.gpuUnseen.gpus[${i}]`;
		if (!isObject(gpu) || !Number.isInteger(gpu.index)) return `${at}.index: an integer`;
		if (!sizeOrNull(gpu.unaccountedBytes)) return `${at}.unaccountedBytes: a number or null`;
		if (!Array.isArray(gpu.processes)) return `${at}.processes: an array`;
		for (const [j, p] of gpu.processes.entries()) {
			if (!isObject(p) || !Number.isInteger(p.pid) || !sizeOrNull(p.usedBytes) || !REASONS.has(p.reason))
				return `${at}.processes[${j}]: {pid, usedBytes, reason: not-visible, gone, zombie or d-state}`;
		}
	}
	return null;
}

/** The first field of `snapshot.hostConsumers` out of shape; null when it is as the views read it. */
export function hostConsumersShapeError(consumers: unknown): string | null {
	if (consumers === undefined || consumers === null) return null;
	if (!isObject(consumers) || !Array.isArray(consumers.top)) return 'at snapshot.hostConsumers.top: an array';
	for (const [i, c] of consumers.top.entries()) {
		if (!isObject(c) || !Number.isInteger(c.pid) || typeof c.user !== 'string' || typeof c.cmd !== 'string')
			return `at snapshot.hostConsumers.top[${i}]: {pid, user, cmd, pssBytes, rssBytes}`;
		if (!sizeOrNull(c.pssBytes) || !sizeOrNull(c.rssBytes))
			return `at snapshot.hostConsumers.top[${i}]: pssBytes and rssBytes, numbers or null`;
	}
	return null;
}
