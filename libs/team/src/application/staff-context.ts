import type { CommandContext } from '#platform/command-context.js';
import type { AggregateExecutor } from '#platform/aggregate-executor.js';
import type { CommandResult } from '#platform/write-then-read.js';
import { teamDecider } from '../domain/team/team.decider.js';
import type { TeamCommand } from '../domain/team/team.commands.js';
import { teamStream } from '../domain/team/team.state.js';

/** Who acts on a team: a member in the dashboard, or the CLI / the service itself (member null). */
export interface Staff {
  accountId: string;
  member: string | null;
  address: string | null;
}

/**
 * The context of a staff action: the member in the metadata's actor (`{type: 'dashboard', member}`),
 * the CLI's actor otherwise, and the client's address for the security log. Team and key events have
 * no mode; they are filed as live.
 */
export const staffContext = (staff: Staff, requestId: string | null = null): CommandContext => ({
  accountId: staff.accountId,
  mode: 'live',
  requestId,
  idempotencyKey: null,
  actor: staff.member ? { type: 'dashboard', member: staff.member } : { type: 'cli' },
  address: staff.address,
});

type Without<C> = C extends unknown ? Omit<C, 'accountId' | 'now'> : never;

/** Decides a team command on the account's team stream (loaded, decided, appended with its expected revision). */
export async function executeTeam(executor: AggregateExecutor, ctx: CommandContext, command: Without<TeamCommand>): Promise<CommandResult & { events: string[] }> {
  const result = await executor.execute(teamDecider, teamStream(ctx.accountId), (now) => ({ ...command, accountId: ctx.accountId, now }) as TeamCommand, ctx);
  return { id: ctx.accountId, position: result.position, events: result.events.map((e) => e.type) };
}
