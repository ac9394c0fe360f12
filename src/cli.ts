#!/usr/bin/env node
import {parseArgv} from './cli/argv.js';
import {runCommandLine} from './cli/command-table.js';
import {EXIT, UsageError} from './core/errors.js';
import {printable} from './format/printable.js';
import {endQuietlyIfTerminalDies} from './system/dead-terminal.js';

// Named for what it is: `ps`, /proc/PID/comm and another traintop's rank discovery see "traintop …", not
// "node …/dist/cli.js" (a traintop started in a scheduler's step carries its rank variable and must never pass for a rank).
process.title = ['traintop', ...process.argv.slice(2)].join(' ');
// SIGUSR1 to a Node process opens an inspector (a debug port on 127.0.0.1:9229) unless a listener is installed.
// A stray save signal must not turn a monitor into a debug port: listen, and do nothing.
process.on('SIGUSR1', () => {});
// A closed terminal (window, tmux, ssh) ends traintop like q does, exit 0: never a crash on EIO at exit.
endQuietlyIfTerminalDies();

// React's development build checks and warns on every render (several times slower); the TUI is
// imported only after this line, so it gets the production build unless the user asked otherwise.
process.env.NODE_ENV ??= 'production';

// argv → one command of the table (cli/command-table.ts) → its exit code. The only file that calls process.exit.
// Each command is imported when chosen: `--analyze` of a big log should not pay for (or hold in memory) the
// monitor's readers and watchers.

async function main(): Promise<number> {
	// A closed terminal or log pipe must not crash the monitor through its diagnostics.
	process.stderr.on('error', () => {});
	const cli = parseArgv(process.argv.slice(2), import.meta);
	return runCommandLine(cli, () => process.exit(EXIT.ok));
}

try {
	process.exitCode = await main();
} catch (error) {
	if (error instanceof UsageError) {
		// A usage message may quote a flag's value, a file's name or its contents' position: text from outside,
		// shown inert like every other (format/printable.ts); its own line breaks are kept.
		process.stderr.write(`traintop: ${error.message.split('\n').map(printable).join('\n')}\n`);
		process.exitCode = EXIT.usage;
	} else {
		process.stderr.write(`traintop: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
		process.exitCode = EXIT.failure;
	}
}
// Leftover handles (a stdout pipe nobody reads) must not keep a finished monitor alive — but what was
// written must get out first: process.exit() drops output still queued on a pipe (a large --json
// report was cut at 214 KiB). A write's callback runs once everything before it has been flushed.
if (process.stdout.writable && !process.stdout.destroyed) {
	// A reader that went away (EPIPE) or never reads must neither crash nor hold traintop forever.
	process.stdout.on('error', () => {});
	await Promise.race([
		new Promise(resolve => process.stdout.write('', resolve)),
		new Promise(resolve => setTimeout(resolve, 5000).unref()),
	]);
}
process.exit();
