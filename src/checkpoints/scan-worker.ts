// The scan's thread (scan-thread.ts): scans each run dir it is sent and posts the result back. The scan's caches
// (tree-stats-cache.ts) live here, between rescans, for as long as the thread.

import {parentPort} from 'node:worker_threads';
import {UsageError, errorMessage} from '../core/errors.js';
import {scanRunDir} from './scan.js';
import type {ScanReply, ScanRequest} from './scan-thread.js';

const port = parentPort;
port?.on('message', ({id, runDir}: ScanRequest) => {
	scanRunDir(runDir).then(
		result => port.postMessage({id, ok: true, result} satisfies ScanReply),
		(error: unknown) =>
			port.postMessage({
				id,
				ok: false,
				usage: error instanceof UsageError,
				message: errorMessage(error),
			} satisfies ScanReply),
	);
});
