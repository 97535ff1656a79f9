/**
 * The KeyVault contract of @keyhold/conformance, run against the software vault: every key is
 * in process, so every trait keeps its default (RFC 6979 signatures, exportable keys).
 */
import { keyVaultContract } from '@keyhold/conformance/key-vault';
import { describe, it } from 'vitest';
import { generateMasterKey } from './master-key.js';
import { SoftwareKeyVault } from './software-key-vault.js';

describe('KeyVault contract: SoftwareKeyVault', () => {
  const vault = new SoftwareKeyVault({ masterKey: generateMasterKey() });
  for (const check of keyVaultContract({ vault })) it(check.name, check.run);
});
