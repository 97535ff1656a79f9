/**
 * What the store benches sign with: a Keyhold on the given store, a bootstrapped organization
 * and one Ethereum wallet account, and the parameters of a SIGN_RAW_PAYLOAD_V2 of the n-th
 * digest (a new digest each time: a new activity, not the stored one).
 * @module
 */
import { createKeyhold, generateApiKeyPair } from '@keyhold/server';

/** The Store port, as `createKeyhold` takes it (the bench imports no domain package). */
export type BenchStore = NonNullable<Parameters<typeof createKeyhold>[0]>['store'];

/** The parameters of a SIGN_RAW_PAYLOAD_V2 of digest `n` (zero-padded hex) with `signWith`. */
export const signRawPayloadParameters = (signWith: string, n: number) => ({
  signWith,
  payload: `0x${n.toString(16).padStart(64, '0')}`,
  encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
  hashFunction: 'HASH_FUNCTION_NO_OP',
});

/**
 * A Keyhold on `store` with an organization named `organizationName` and one wallet account.
 * @example
 * const { client, address } = await signingOrganization(store, 'round trips');
 * await client.submit('ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2', signRawPayloadParameters(address, 1));
 */
export async function signingOrganization(store: BenchStore, organizationName: string) {
  const key = generateApiKeyPair();
  const keyhold = createKeyhold({ store });
  const { organizationId } = await keyhold.bootstrap({
    organizationName,
    apiPublicKey: key.publicKey,
  });
  const client = keyhold.client({ organizationId, apiPrivateKey: key.privateKey });
  const wallet = await client.run<{ addresses: string[] }>('ACTIVITY_TYPE_CREATE_WALLET', {
    walletName: 'w',
    accounts: [
      {
        curve: 'CURVE_SECP256K1',
        pathFormat: 'PATH_FORMAT_BIP32',
        path: "m/44'/60'/0'/0/0",
        addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
      },
    ],
  });
  return { key, keyhold, organizationId, client, address: wallet.addresses[0]! };
}
