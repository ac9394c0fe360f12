// Runs sendSignal() as whatever user this script was started as (the test starts it as `nobody`)
// against a target owned by another user. The /proc reader claims the target is ours, so that the
// refusal comes from the kernel (EPERM), not from traintop's own ownership check.
// Usage: node send-as-other-user.mjs PID START_TIME
import {sendSignal} from '../../dist/ranks/send.js';
import {procReader} from '../../dist/system/procfs.js';

const [pid, startTime] = process.argv.slice(2).map(Number);
const real = procReader();
const me = process.getuid();
const proc = {
	...real,
	status: p => {
		const status = real.status(p);
		return status && {...status, uid: {real: me, effective: me}};
	},
};
const job = {id: `pid:${pid}`, launcher: null, ranks: [{rank: 0, pid, startTime, workers: [], signals: {}}]};
const {results} = await sendSignal({job, signal: 'SIGUSR1', force: false, proc});
process.stdout.write(`${JSON.stringify(results)}\n`);
