import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import { boot } from '../main.ts';
import { listGrants, revokeGrant } from '../oauth/grants.ts';
import { hashPassword } from '../oauth/passwords.ts';
import type { CliKit } from './catalog.ts';

/** Read all of stdin as text (a password piped in, so it never shows in `ps` or the shell history). */
async function readStdin(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
}

/**
 * Operator commands of the built-in OAuth authorization server (issue 37): `atelier user create`
 * (an operator account that signs in on the consent pages), `atelier auth rotate-keys` (a new token
 * signing key; servers use it after their next start), `atelier grants list|revoke` (what connectors a
 * tenant allowed, and taking one back: its tokens are refused from the next request on).
 */
export function registerOAuthCommands(program: Command, kit: CliKit): void {
  program
    .command('user')
    .description('operator accounts that sign in to the OAuth consent pages')
    .command('create')
    .description('create an operator account of a tenant; the password is read from stdin')
    .requiredOption('--tenant <id>', 'tenant id')
    .requiredOption('--name <name>', 'user name (unique)')
    .option('--json', 'print {"operator_id","tenant_id","name"}')
    .action(async (o: { tenant: string; name: string; json?: boolean }) => {
      const password = await readStdin();
      if (password.length < 12) kit.fail('the password (on stdin) must have at least 12 characters');
      const { app } = await boot();
      if (!(await app.library.tenancy.tenant(o.tenant))) kit.fail(`tenant ${o.tenant} does not exist`);
      if (await app.stores.oauth.operatorByName(o.name)) kit.fail(`user name ${o.name} is taken`);
      const id = randomUUID();
      await app.stores.oauth.insertOperator({
        id,
        tenant_id: o.tenant,
        name: o.name,
        password_hash: await hashPassword(password),
        created_at: new Date().toISOString(),
      });
      await app.close();
      kit.emit(!!o.json, { operator_id: id, tenant_id: o.tenant, name: o.name }, `operator_id: ${id}\nname: ${o.name}`);
    });

  program
    .command('auth')
    .description('the built-in OAuth authorization server')
    .command('rotate-keys')
    .description('add a new access-token signing key (the previous two still verify); restart servers to sign with it')
    .option('--json', 'print {"kids"} newest first')
    .action(async (o: { json?: boolean }) => {
      const { rotateSigningKeys } = await import('../oauth/keys.ts'); // jose: only this command needs it
      const { app } = await boot();
      const kids = await rotateSigningKeys(app.stores.oauth);
      await app.close();
      kit.emit(!!o.json, { kids }, `signing key: ${kids[0]}\nstill verifying: ${kids.slice(1).join(', ') || 'none'}`);
    });

  const grants = program.command('grants').description('OAuth grants: the workspaces each connector may reach');
  grants
    .command('list')
    .description("a tenant's OAuth grants (live and revoked) with the workspaces they reach")
    .requiredOption('--tenant <id>', 'tenant id')
    .option('--json', 'print {"grants":[{"grant_id","client","workspace_ids","created_at","revoked_at"}]}')
    .action(async (o: { tenant: string; json?: boolean }) => {
      const { app } = await boot();
      const out = await listGrants(app.library.tenancy, o.tenant);
      await app.close();
      kit.emit(
        !!o.json,
        { grants: out },
        out.map((g) => `${g.grant_id}  ${g.client}  ${g.workspace_ids.join(',')}${g.revoked_at ? '  (revoked)' : ''}`).join('\n') ||
          'no grants',
      );
    });
  grants
    .command('revoke')
    .description('revoke an OAuth grant: its access tokens are refused from the next request, its refresh tokens stop working')
    .argument('<grant_id>')
    .option('--json', 'print {"grant_id","revoked"}')
    // grant ids are base64url, so one in 64 begins with "-": an argument the command does not know as an
    // option is the grant id (a misspelt option then fails as "grant … does not exist")
    .allowUnknownOption()
    .action(async (grantId: string, o: { json?: boolean }) => {
      const { app } = await boot();
      const outcome = await revokeGrant(app.library.tenancy, app.stores.oauth, grantId);
      await app.close();
      if (outcome === 'not_found') kit.fail(`grant ${grantId} does not exist`);
      const revoked = outcome === 'revoked';
      kit.emit(!!o.json, { grant_id: grantId, revoked }, revoked ? `revoked ${grantId}` : `${grantId} was already revoked`);
    });
}
