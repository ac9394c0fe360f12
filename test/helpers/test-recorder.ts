import {MemoryLogRecorder} from '../../src/memlog/recorder.js';

// A real memory log for a test driving a Monitor tick by tick (scripted-monitor.ts). Its own file: the memory log's
// modules read the schedulers' log keys when they load, so a test that registers a scheduler first imports this after.

/** A real recorder writing `logPath`, a record every `logIntervalMs` of 1 s samples. */
export function testRecorder(logPath: string, logIntervalMs: number): MemoryLogRecorder {
	return new MemoryLogRecorder({logPath, logIntervalMs, sampleIntervalMs: 1000, gpuThreshold: 90});
}
