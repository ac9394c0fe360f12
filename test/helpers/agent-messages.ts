import {type AgentMessage, parseAgentMessage} from '../../src/agent/protocol.js';
import type {CliRun} from './run-cli.js';

/** Every complete stdout line of a running agent, each of which must be an agent message (else the test fails). */
export function agentMessages(agent: CliRun): AgentMessage[] {
	return agent
		.stdout()
		.split('\n')
		.slice(0, -1)
		.map(line => {
			const parsed = parseAgentMessage(line);
			if (!parsed.ok) throw new Error(`not an agent message (${parsed.error}): ${line}`);
			return parsed.value;
		});
}
