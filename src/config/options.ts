import type {OptionSpec} from './option-spec.js';
import {schedulers} from '../scheduler/registry.js';
import {SETTING_OPTIONS} from './options-settings.js';
import {NOTIFY_OPTIONS} from './options-notify.js';

/** Every command that reads settings (the config file among them). */
const SETTLED = ['monitor', 'demo', 'ranks', 'checkpoints', 'signal', 'agent', 'analyze'] as const;
/** The commands that find ranks: --pid and --match choose among which processes. */
const FINDERS = ['monitor', 'agent', 'ranks', 'signal'] as const;
/** The monitor and signal reach other nodes through agents. */
const FLEET = ['monitor', 'signal'] as const;

const OUTPUT_OPTIONS: readonly OptionSpec[] = [
	{
		name: 'headless',
		usage: '--headless',
		kind: 'boolean',
		description: 'status lines and the memory log, no TUI (chosen anyway when stdout is not a terminal)',
		commands: ['monitor', 'demo'],
	},
	{
		name: 'json',
		usage: '--json',
		kind: 'boolean',
		description: 'JSON on stdout: headless log records as JSON Lines; ranks and signal results as one object',
		commands: ['monitor', 'demo', 'ranks', 'checkpoints', 'signal', 'analyze'],
	},
	{
		name: 'wide',
		usage: '--wide',
		kind: 'boolean',
		description: 'whole command lines, never cut to the terminal (always so when stdout is not a terminal)',
		commands: ['ranks'],
	},
	{
		name: 'analyze',
		usage: '--analyze PATH...',
		kind: 'boolean',
		description: 'report on memory logs (files, globs or run dirs) and exit',
		commands: ['analyze'],
	},
	{
		name: 'markdown',
		usage: '--markdown',
		kind: 'boolean',
		description: 'the report as Markdown (for an incident note)',
		commands: ['analyze'],
	},
	{
		name: 'plot',
		usage: '--plot FILE.svg',
		kind: 'string',
		description: 'also write an SVG chart of every metric with thresholds and episodes',
		commands: ['analyze'],
	},
	{
		name: 'failOnBreach',
		usage: '--fail-on-breach',
		kind: 'boolean',
		description: 'exit 4 when any metric reached its threshold',
		commands: ['analyze'],
	},
	{
		name: 'host',
		usage: '--host NAME',
		kind: 'string',
		description: "only this host's records (logs of a multi-node job hold one series per host)",
		commands: ['analyze'],
	},
];

const JOB_OPTIONS: readonly OptionSpec[] = [
	{
		name: 'pid',
		usage: '--pid PID',
		kind: 'number',
		description: 'find ranks among this process (torchrun, srun or a rank) and its descendants',
		commands: FINDERS,
	},
	{
		name: 'match',
		usage: '--match REGEX',
		kind: 'string',
		description: 'ranks are the processes whose command line matches (with their workers)',
		commands: FINDERS,
	},
	{
		name: 'job',
		usage: '--job ID',
		kind: 'string',
		description: "the job (an id as `traintop ranks` lists it, its launcher pid, or a scheduler's job)",
		commands: ['ranks', 'signal'],
	},
	{
		name: 'rank',
		usage: '--rank N,N',
		kind: 'string',
		description: 'only these ranks (default: every rank)',
		commands: ['signal'],
	},
	{
		name: 'yes',
		usage: '--yes',
		kind: 'boolean',
		description: 'do not ask for confirmation (needed without a terminal)',
		commands: ['signal'],
	},
	{
		name: 'force',
		usage: '--force',
		kind: 'boolean',
		description:
			"send even where a rank has no handler (the signal terminates it), is stopped, or (the scheduler's tools) cannot be read here",
		commands: ['signal'],
	},
	{
		name: 'wait',
		usage: '--wait',
		kind: 'boolean',
		description: 'wait for the new checkpoint and report it (exit 3 if none comes)',
		commands: ['signal'],
	},
];

const NODE_OPTIONS: readonly OptionSpec[] = [
	{
		name: 'hosts',
		usage: '--hosts A,B,…',
		kind: 'string',
		description:
			'watch (or signal) these nodes: a `traintop agent` on each through ssh ([user@]host; `local` runs one here)',
		commands: FLEET,
	},
	{
		name: 'cluster',
		usage: '--cluster FILE',
		kind: 'string',
		description:
			"the nodes of a cluster.yaml, as --hosts (ssh or local per node; its GPUs' reserve factors as thresholds)",
		commands: FLEET,
	},
	{
		name: 'sshCommand',
		usage: '--ssh-command CMD',
		kind: 'string',
		defaultText: '$TRAINTOP_SSH_COMMAND, else ssh -T -o BatchMode=yes …',
		description: "the ssh that starts each node's agent, a shell command as GIT_SSH_COMMAND is (a wrapper, options)",
		commands: FLEET,
	},
	{
		name: 'agents',
		usage: '--agents',
		kind: 'boolean',
		description:
			"with a scheduler's job: watch (and signal) every node of the job through a `traintop agent` on each, started by the scheduler",
		commands: FLEET,
	},
	{
		name: 'nodeName',
		usage: '--node-name NAME',
		kind: 'string',
		defaultText: "the scheduler's name for the node, else the hostname",
		description: 'the host name its messages carry and its commands must name',
		commands: ['agent'],
	},
];

const GENERAL_OPTIONS: readonly OptionSpec[] = [
	{
		name: 'config',
		usage: '--config FILE',
		kind: 'string',
		defaultText: '$TRAINTOP_CONFIG',
		description: 'JSON file of settings (camelCase keys, e.g. {"ramThreshold": 80}); flags win over it',
		commands: SETTLED,
	},
	{
		name: 'help',
		usage: '-h, --help',
		short: 'h',
		kind: 'boolean',
		description: 'show this help (of the command before it); nothing else runs',
		// Every command, those added later too: cli/commands.ts' optionsOf gives it to each.
		commands: [],
	},
	{name: 'version', usage: '-v, --version', short: 'v', kind: 'boolean', description: 'show the version', commands: []},
];

/**
 * The generic options with the schedulers' own (each after the one its `after` names) and in the schedulers' words
 * where one has them (the first registered wins): its job flag and its job id forms are its folder's to say.
 */
function withSchedulers(options: readonly OptionSpec[]): OptionSpec[] {
	const out = options.map(option => {
		const words = schedulers().find(entry => entry.optionWords?.[option.name])?.optionWords?.[option.name];
		return words === undefined ? option : {...option, ...words};
	});
	for (const {after, ...option} of schedulers().flatMap(entry => entry.options ?? [])) {
		const at = out.findIndex(one => one.name === after);
		out.splice(at < 0 ? out.length : at + 1, 0, option);
	}
	return out;
}

export const OPTIONS: readonly OptionSpec[] = withSchedulers([
	...OUTPUT_OPTIONS,
	...JOB_OPTIONS,
	...NODE_OPTIONS,
	...SETTING_OPTIONS,
	...NOTIFY_OPTIONS,
	...GENERAL_OPTIONS,
]);

/** `logInterval` → `--log-interval`: how a camelCase name is written as a flag. */
export function flagName(name: string): string {
	return `--${name.replace(/[A-Z]/g, c => `-${c.toLowerCase()}`)}`;
}
