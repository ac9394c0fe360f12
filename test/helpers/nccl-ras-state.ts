import type {NcclRasState} from '../../src/core/progress-types.js';
import {parseNcclRasAnswer} from '../../src/system/nccl-ras-parse.js';
import {rasFixture} from './fake-ras-server.js';

/** NCCL 2.28.9's recorded RAS answer (test/fixtures/nccl-ras/status-2.28.9.txt) as the poller's state at `readAt`. */
export function recordedRasState(readAt: number): NcclRasState {
	const {answer, problem} = parseNcclRasAnswer(rasFixture('status-2.28.9.txt'));
	if (answer === null) throw new Error(`the recorded RAS answer does not parse: ${problem}`);
	return {status: 'ok', readAt, ...answer, changes: []};
}
