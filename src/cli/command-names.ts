// The commands' names, apart from their table (cli/commands.ts): the option table names the commands an option
// applies to, and the command table lists each command's options, so the names are the leaf both import.

export const COMMAND_NAMES = [
	'monitor',
	'demo',
	'ranks',
	'signal',
	'drill',
	'stacks',
	'checkpoints',
	'preflight',
	'agent',
	'analyze',
	'completion',
	'help',
] as const;
export type CommandName = (typeof COMMAND_NAMES)[number];
