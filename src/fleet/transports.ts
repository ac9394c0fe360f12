import type {FleetConnection} from './fleet.js';

// How an agent is started on a node: locally as a child, or through ssh; a scheduler's own transport onto its job's
// nodes is its entry's (scheduler/signal-route.ts SchedulerAgents). Pure: argv only; the Fleet runs them.

/** What every agent is asked to do: the same run dir, interval and selection the viewer was given. */
export interface AgentArgs {
	/** `traintop agent` arguments after the node name: RUN_DIR, --interval, selector flags. */
	readonly args: readonly string[];
}

/** The ssh command when none is set: never prompts (a password prompt would hang inside a TUI), notices dead links. */
export const DEFAULT_SSH_COMMAND = 'ssh -T -o BatchMode=yes -o ConnectTimeout=10 -o ServerAliveInterval=10';

/** POSIX shell quoting for the remote command line (ssh joins its arguments with spaces for the remote shell). */
export function shellQuote(word: string): string {
	return /^[A-Za-z0-9_./:=@%+,-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}

/** The agent's own command line on the node. */
function agentCommand(program: readonly string[], node: string, agent: AgentArgs): string[] {
	return [...program, 'agent', '--node-name', node, ...agent.args];
}

/** A node on this machine: this same traintop as a child (`process.execPath` and the CLI's path). */
export function localConnection(node: string, self: readonly string[], agent: AgentArgs): FleetConnection {
	return {nodes: [node], address: 'local', argv: agentCommand(self, node, agent)};
}

/**
 * A node through ssh, as git runs GIT_SSH_COMMAND: the command is a shell string (options, a wrapper script), run
 * as `sh -c '<command> "$@"' ssh [-l user] host '<remote command>'`. The remote side runs `traintop` from its PATH.
 */
export function sshConnection(
	node: string,
	target: {readonly host: string; readonly user: string | null},
	sshCommand: string,
	agent: AgentArgs,
): FleetConnection {
	const remote = agentCommand(['traintop'], node, agent).map(shellQuote).join(' ');
	const user = target.user === null ? [] : ['-l', target.user];
	return {
		nodes: [node],
		address: target.host,
		argv: ['sh', '-c', `${sshCommand} "$@"`, 'ssh', ...user, target.host, remote],
	};
}
