/**
 * CREATE_PRIVATE_KEYS (V1, V2): standalone keys generated inside the vault.
 * @module
 */
import type { PrivateKeyResult } from '@keyhold/protocol';
import { bytesToHex } from '@noble/hashes/utils.js';
import type { PrivateKeyRecord } from '../records.js';
import type { HandlerOf } from './activity-handler.js';
import { assertAddressFormatFits } from './address-format-check.js';
import { requirePrivateKeyTags } from './tags.js';

export const createPrivateKeysHandler: HandlerOf<'CREATE_PRIVATE_KEYS'> = {
  precheck(p) {
    for (const key of p.privateKeys) {
      for (const format of key.addressFormats ?? []) {
        assertAddressFormatFits(format, key.curve);
      }
    }
  },
  async execute(ctx, p) {
    const created: PrivateKeyResult[] = [];
    for (const params of p.privateKeys) {
      const privateKeyTags = await requirePrivateKeyTags(ctx, params.privateKeyTags);
      const vaultKey = await ctx.vault.createKey(params.curve);
      const formats = [...new Set(params.addressFormats ?? [])];
      // In the server's CryptoWorkPool: a Taproot address is a point multiplication.
      const [computed = []] =
        formats.length === 0
          ? []
          : await ctx.work.run('addresses', {
              items: [{ curve: params.curve, publicKey: vaultKey.publicKey, formats }],
            });
      const addresses = formats.map((format, i) => ({ format, address: computed[i] as string }));
      const record: PrivateKeyRecord = {
        organizationId: ctx.organization.organizationId,
        privateKeyId: ctx.ids.uuid(),
        privateKeyName: params.privateKeyName,
        curve: params.curve,
        publicKey: bytesToHex(vaultKey.publicKey),
        addresses,
        privateKeyTags,
        key: vaultKey.key,
        exported: false,
        imported: false,
        disabled: false,
        createdAt: ctx.now,
        updatedAt: ctx.now,
      };
      await ctx.tx.privateKeys.insert(record);
      created.push({ privateKeyId: record.privateKeyId, addresses });
    }
    return ctx.definition.version === 1
      ? { privateKeyIds: created.map((c) => c.privateKeyId) }
      : { privateKeys: created };
  },
};
