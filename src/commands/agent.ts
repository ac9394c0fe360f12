import {existsSync} from 'node:fs';
import {hostname} from 'node:os';
import {runAgent} from '../agent/agent.js';
import {traintopVersion} from '../agent/version.js';
import type {Settings} from '../config/schema.js';
import {EXIT, UsageError} from '../core/errors.js';
import type {RankSelector} from '../ranks/tree.js';
import {flaggedJob, schedulerNodeName} from '../scheduler/registry.js';
import {openSession} from '../session/session.js';
import {runDirFrom} from './run-dir.js';
import {stopOnSignals} from './stop-signals.js';

export interface AgentCommandOptions {
	/** Positional arguments after `agent`: at most one RUN_DIR. */
	readonly input: readonly string[];
	readonly flags: Readonly<Record<string, unknown>>;
	readonly settings: Settings;
	readonly selector: RankSelector;
	/** Ends the process at once (cli.ts owns process.exit): a second signal means "now". */
	readonly exitNow: () => void;
}

/**
 * The name its messages carry: --node-name (the viewer's name for the node, so its commands find this agent),
 * else the scheduler's name for the node (an agent it starts on every node of a job is addressed by it), else the
 * hostname.
 */
function nodeName(flag: unknown, env: NodeJS.ProcessEnv = process.env): string {
	if (flag === undefined) return schedulerNodeName(env) || hostname();
	const name = String(flag).trim();
	if (name === '') throw new UsageError('--node-name needs a name (the host its messages carry), got an empty one');
	return name;
}

/**
 * `traintop agent [RUN_DIR]`: the headless mode of one node for a traintop that watches many (agent/agent.ts). The
 * memory log is off unless --log-file asks for it: the viewer writes one log per node, and every node's agent
 * writing the default log into a shared run dir would interleave them in one file.
 */
export async function runAgentCommand({
	input,
	flags,
	settings,
	selector,
	exitNow,
}: AgentCommandOptions): Promise<number> {
	const runDir = runDirFrom(input);
	const host = nodeName(flags.nodeName);
	const agentSettings: Settings = {...settings, log: flags.logFile !== undefined && flags.log !== false};
	// The scheduler is read only when asked (its job flag): the viewer reads it once for every node. Without it, an
	// agent inside a scheduler's job still takes only that job's tasks as ranks.
	const scheduledJob = flaggedJob(flags) ?? undefined;
	const session = await openSession({settings: agentSettings, runDir, selector, host, scheduledJob});
	// However the agent exits, no nvidia-smi may outlive it.
	process.on('exit', () => session.killNow());
	// Only with --log-file: said where whoever started the agent reads (the viewer shows an agent's last stderr lines).
	session.recorder.trouble.subscribe(trouble => {
		if (trouble) process.stderr.write(`traintop agent: ${trouble}\n`);
	});
	if (runDir !== null && !existsSync(runDir))
		process.stderr.write(`traintop agent: RUN_DIR ${runDir} does not exist yet: waiting for it to appear\n`);

	const stop = stopOnSignals(exitNow);

	const end = await runAgent(session, {
		runDir,
		version: traintopVersion(),
		stdin: process.stdin,
		stdout: process.stdout,
		signal: stop,
	});
	// Read by whoever started it (the viewer keeps an agent's last stderr lines to say why it ended).
	process.stderr.write(`traintop agent on ${host}: ${end}, exiting\n`);
	return EXIT.ok;
}
