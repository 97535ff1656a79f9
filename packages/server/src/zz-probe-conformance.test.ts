import { it } from 'vitest';
import { ConformanceClient, handlerTarget } from '@keyhold/conformance';
import { generateApiKeyPair } from './api-key-signer.js';
import { createKeyhold } from './keyhold.js';
import { silentLogger } from './logger.js';
it('probe', async () => {
  const keyhold = createKeyhold({ logger: silentLogger });
  const key = generateApiKeyPair();
  const { organizationId } = await keyhold.bootstrap({ organizationName: 'x', apiPublicKey: key.publicKey });
  const client = new ConformanceClient(handlerTarget({ handler: keyhold, organizationId, apiPrivateKey: key.privateKey }));
  const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n;
  const n256 = 0xffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551n;
  for (const curve of ['CURVE_SECP256K1', 'CURVE_P256']) {
    const r = await client.execute('ACTIVITY_TYPE_CREATE_PRIVATE_KEYS_V2', 'create_private_keys', { privateKeys: [{ privateKeyName: 'k'+curve, curve, privateKeyTags: [], addressFormats: ['ADDRESS_FORMAT_COMPRESSED'] }] }, 'createPrivateKeysResultV2');
    let high = 0;
    for (let i = 0; i < 100; i++) {
      const sig = await client.execute('ACTIVITY_TYPE_SIGN_RAW_PAYLOAD_V2', 'sign_raw_payload', { signWith: r.privateKeys[0].privateKeyId, payload: 'msg' + i, encoding: 'PAYLOAD_ENCODING_TEXT_UTF8', hashFunction: 'HASH_FUNCTION_SHA256' }, 'signRawPayloadResult');
      if (BigInt('0x' + sig.s) > (curve === 'CURVE_P256' ? n256 : n) / 2n) high++;
    }
    console.log(curve, 'high-S count of 100:', high);
  }
  // uppercase org id
  const body = JSON.stringify({ organizationId: organizationId.toUpperCase() });
  const res = await client.postStamped('/public/v1/query/whoami', body);
  console.log('upper org whoami', res.status, res.body.slice(0, 200));
  const ab = await client.submit('ACTIVITY_TYPE_CREATE_WALLET', 'create_wallet', { walletName: 'w', accounts: [] });
  console.log(ab.activity.status, JSON.stringify(ab.activity).slice(0, 300));
  const w2 = await client.submit('ACTIVITY_TYPE_CREATE_WALLET', 'create_wallet', { walletName: 'w', accounts: [] });
  console.log('dup wallet name', w2.activity.status, JSON.stringify(w2.activity.failure));
});
