import {describe, expect, test} from 'vitest';
import {DEFAULT_NOTIFY_EVENTS} from '../../src/notify/event-names.js';
import {notifySelection} from '../../src/notify/selection.js';

describe('notifySelection', () => {
	test('the default: CRIT levels, rank exits, hangs, not-ready, overdue and the end; not the rest', () => {
		const s = notifySelection(DEFAULT_NOTIFY_EVENTS);
		expect(s.levelLine).toBe('critical');
		expect(s.notReady).toBe(true);
		for (const kind of ['rank-exited', 'job-stalled', 'job-hung', 'overdue', 'job-ended'] as const)
			expect(s.raises(kind)).toBe(true);
		for (const kind of ['save-seen', 'memory-growing', 'gpu-health', 'rank-stalled', 'node-link'] as const)
			expect(s.raises(kind)).toBe(false);
	});

	test('warn is the wider line: named with crit, warn wins', () => {
		expect(notifySelection(['crit', 'warn']).levelLine).toBe('warn');
		expect(notifySelection(['warn']).levelLine).toBe('warn');
	});

	test('a list without a level class follows no metric, and one without not-ready no readiness', () => {
		const s = notifySelection(['save-seen']);
		expect(s.levelLine).toBeNull();
		expect(s.notReady).toBe(false);
		expect(s.raises('save-seen')).toBe(true);
		expect(s.raises('rank-exited')).toBe(false);
	});

	test('all: every kind, the warn line, not-ready; never the ending kinds themselves', () => {
		const s = notifySelection(['all']);
		expect(s.levelLine).toBe('warn');
		expect(s.notReady).toBe(true);
		expect(s.raises('gpu-health')).toBe(true);
		expect(s.raises('node-declared')).toBe(true);
		expect(s.raises('job-progressing')).toBe(false);
		expect(s.raises('memory-steady')).toBe(false);
	});
});
