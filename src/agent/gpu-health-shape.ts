// Each GPU reading's `health` on the agent stream (core/gpu-health-types.ts), as the views read it without looking:
// absent (an agent older than health, or a driver that was not asked), null, or an object whose `throttle` is null or
// an array of strings. Its numbers were checked with every other value (wire-values.ts), and a flag or mode of another
// type only reads as no problem; a `throttle` that is not an array would throw in the views, so it is refused here.

type Fields = Readonly<Record<string, unknown>>;

const isObject = (value: unknown): value is Fields =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

/** The first GPU reading whose health is out of shape: `at snapshot.gpu.gpus[0].health.throttle: …`; else null. */
export function gpuHealthShapeError(gpu: Fields): string | null {
	if (gpu.status !== 'ok' || !Array.isArray(gpu.gpus)) return null;
	for (const [i, reading] of gpu.gpus.entries()) {
		if (!isObject(reading) || reading.health === undefined || reading.health === null) continue;
		const where = `at snapshot.gpu.gpus[${i}].health`;
		if (!isObject(reading.health)) return `${where}: an object or null`;
		const throttle = reading.health.throttle;
		if (throttle !== null && !(Array.isArray(throttle) && throttle.every(reason => typeof reason === 'string')))
			return `${where}.throttle: null or an array of strings`;
	}
	return null;
}
