// A minimal traintop stand-in for the lifecycle tests: runs one NvidiaSmiReader (the built one, from dist/; `npm test`
// builds first) and wires process exit the way the real CLI must, so the tests can end it every way a process ends and
// then look for survivors. Usage: node host.mjs
// stdin commands: `stop` → await reader.stop(), then let the event loop run dry; `exit` → process.exit(0).

import {createInterface} from 'node:readline';

const {NvidiaSmiReader} = await import(new URL('../../../dist/system/nvidia-smi.js', import.meta.url).href);

const reader = new NvidiaSmiReader({
	intervalMs: Number(process.env.HOST_INTERVAL_MS ?? 100),
	processIntervalMs: Number(process.env.HOST_PROCESS_INTERVAL_MS ?? 0),
	killGraceMs: 500,
});

// Nothing asynchronous runs in 'exit': killNow() is synchronous.
process.on('exit', () => reader.killNow());
for (const [signal, number] of [
	['SIGTERM', 15],
	['SIGINT', 2],
	['SIGHUP', 1],
]) {
	process.on(signal, () => void reader.stop().then(() => process.exit(128 + number)));
}

let reported = null;
reader.subscribe(() => {
	const {status} = reader.getState();
	if (status !== reported) process.stdout.write(`state ${(reported = status)}\n`);
});
reader.start();
process.stdout.write('started\n');

const commands = createInterface({input: process.stdin});
commands.on('line', async line => {
	if (line === 'exit') process.exit(0);
	if (line === 'stop') {
		await reader.stop();
		commands.close();
		process.stdin.destroy();
		process.stdout.write('stopped\n');
		// No process.exit: the host must now exit by itself, which it only does if the reader left nothing running.
	}
});
