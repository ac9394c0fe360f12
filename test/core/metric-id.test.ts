import {expect, test} from 'vitest';
import {gpuMetricId} from '../../src/core/metric-id.js';

test('a GPU metric id is gpu and the device index', () => {
	expect(gpuMetricId(0)).toBe('gpu0');
	expect(gpuMetricId(12)).toBe('gpu12');
});
