/**
 * The KeyVault contract of @keyhold/conformance, run against the PKCS#11 vault on SoftHSM2.
 * Keys from createKey are born in the token: it signs ECDSA with its own random nonces, never
 * exports them (PRIVATE_KEY_NOT_EXPORTABLE), cannot tweak them for Taproot, and destroyKey
 * removes them. Wrapped keys (imported, derived) sign in process, like the software vault.
 *
 * The vault is opened while the file loads, so the contract sees its optional methods
 * (signTaproot, destroyKey). Without SoftHSM2 the suite is skipped (or fails when CI is set).
 */
import { keyVaultContract } from '@keyhold/conformance/key-vault';
import { afterAll, describe, it } from 'vitest';
import { createSoftHsm, softHsmAvailable } from './__fixtures__/softhsm.js';
import { openPkcs11KeyVault } from './pkcs11-key-vault.js';

const hsm = softHsmAvailable() ? createSoftHsm(['contract']) : undefined;
const vault = hsm
  ? await openPkcs11KeyVault({
      modulePath: hsm.modulePath,
      tokenLabel: 'contract',
      pin: hsm.tokens.contract!.pin,
    })
  : undefined;

afterAll(async () => {
  await vault?.close();
  hsm?.cleanup();
});

describe.skipIf(!vault)('KeyVault contract: Pkcs11KeyVault on SoftHSM2', () => {
  const checks = keyVaultContract({
    vault: vault ?? (() => Promise.reject(new Error('SoftHSM2 is not installed'))),
    createdKeys: { deterministicEcdsa: false, exportable: false, signTaproot: false },
  });
  for (const check of checks) it(check.name, check.run);
});
