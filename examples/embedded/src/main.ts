/**
 * Keyhold embedded in a host program: no HTTP server, no network. The host creates a Keyhold
 * instance in its own process, bootstraps an organization whose root user holds an API key,
 * and talks to it through the embedded client, which stamps every request with that key, so
 * the host goes through the same authentication, validation and authorization as a remote
 * client would.
 *
 * Run it: `pnpm --filter @keyhold/example-embedded start`
 */
import { pathToFileURL } from 'node:url';
import { createKeyhold, generateApiKeyPair, silentLogger } from '@keyhold/server';
import { type Hex, hashMessage, recoverMessageAddress, serializeSignature } from 'viem';

export interface EmbeddedRun {
  organizationId: string;
  walletId: string;
  /** The wallet's first Ethereum account, EIP-55 checksummed. */
  address: string;
  /** The text that was signed, as an EIP-191 ("personal_sign") message. */
  message: string;
  /** hashMessage(message): the 32-byte digest Keyhold signed. */
  digest: Hex;
  /** Keyhold's raw result: hex r and s without 0x, v = "00" | "01". */
  signature: { r: string; s: string; v: string };
  /** The same signature as viem's 65-byte hex. */
  serializedSignature: Hex;
  /** The address viem recovers from (message, signature). */
  recoveredAddress: string;
  /** True when the recovered address is the account's. */
  verified: boolean;
}

export async function main(message = 'Hello from an embedded Keyhold'): Promise<EmbeddedRun> {
  // 1. An instance in this process: in-memory store, software vault with a random master key.
  const keyhold = createKeyhold({ logger: silentLogger });
  try {
    // 2. An organization whose root user holds this API key.
    const apiKey = generateApiKeyPair();
    const { organizationId } = await keyhold.bootstrap({
      organizationName: 'Embedded Host',
      apiPublicKey: apiKey.publicKey,
    });
    const client = keyhold.client({ organizationId, apiPrivateKey: apiKey.privateKey });

    // 3. An HD wallet with one Ethereum account (BIP-44 path m/44'/60'/0'/0/0).
    const { walletId, addresses } = await client.createWallet({
      walletName: 'host wallet',
      accounts: [
        {
          curve: 'CURVE_SECP256K1',
          pathFormat: 'PATH_FORMAT_BIP32',
          path: "m/44'/60'/0'/0/0",
          addressFormat: 'ADDRESS_FORMAT_ETHEREUM',
        },
      ],
    });
    const address = addresses[0]!;

    // 4. Sign the EIP-191 digest of a message: the digest is already hashed, so NO_OP.
    const digest = hashMessage(message);
    const { r, s, v } = await client.signRawPayload({
      signWith: address,
      payload: digest,
      encoding: 'PAYLOAD_ENCODING_HEXADECIMAL',
      hashFunction: 'HASH_FUNCTION_NO_OP',
    });

    // 5. Verify independently: recover the signer's address with viem.
    const serializedSignature = serializeSignature({
      r: `0x${r}`,
      s: `0x${s}`,
      yParity: Number(v),
    });
    const recoveredAddress = await recoverMessageAddress({
      message,
      signature: serializedSignature,
    });

    return {
      organizationId,
      walletId,
      address,
      message,
      digest,
      signature: { r, s, v },
      serializedSignature,
      recoveredAddress,
      verified: recoveredAddress === address,
    };
  } finally {
    await keyhold.close();
  }
}

// Run as a program (not when imported by the test).
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const run = await main();
  console.log(`organization  ${run.organizationId}`);
  console.log(`wallet        ${run.walletId}`);
  console.log(`account       ${run.address}`);
  console.log(`message       ${JSON.stringify(run.message)}`);
  console.log(`digest        ${run.digest}`);
  console.log(`signature     ${run.serializedSignature}`);
  console.log(`recovered     ${run.recoveredAddress}`);
  console.log(run.verified ? 'verified      yes' : 'verified      NO');
  process.exitCode = run.verified ? 0 : 1;
}
