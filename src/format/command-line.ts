// A process's command line shortened for a table row, where the script and its arguments matter
// and the interpreter's install path does not.

/** `/opt/conda/bin/python3 -u train.py` → `python3 -u train.py`, on one line (any run of blanks or newlines becomes one space). */
export function compactCommand(cmd: string): string {
	return cmd
		.replace(/^\S*\/(\S+)/, '$1')
		.replace(/\s+/g, ' ')
		.trim();
}
