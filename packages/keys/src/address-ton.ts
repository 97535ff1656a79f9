/**
 * TON wallet addresses (ADDRESS_FORMAT_TON_V3R2, TON_V4R2, TON_V5R1). A TON account address is
 * `workchain : representation-hash(StateInit)`, the StateInit being the wallet contract's code
 * cell plus an initial data cell holding the Ed25519 key, so one key has a different address per
 * wallet version. Cells, BOC parsing, the StateInit hash and the user-friendly encoding are all
 * `@ton/core` (`beginCell`, `Cell.fromBase64`, `contractAddress`, `Address#toString`); this file
 * only holds the public constants: the three standard code cells and the initial data layouts,
 * the same ones `@ton/ton`'s `WalletContractV3R2`, `WalletContractV4` and `WalletContractV5R1`
 * build by default for workchain 0 on mainnet.
 *
 * String form: user-friendly, url-safe base64, **non-bounceable**, mainnet (`UQ…`, 48
 * characters; TEP-2: tag 0x51, workchain byte, 32-byte hash, CRC16). Turnkey does not publish
 * which flags it uses. Searched: its docs (`features/wallets.mdx` lists only curve and path for
 * TON), the SDK's `examples/chain-integrations/with-ton` (it passes the Turnkey address to
 * `Address.parse`, which accepts either form, and back to `signWith` unchanged, and prints no
 * example), the Go, Rust and TypeScript SDK sources and the issue trackers. None has a TON address
 * string. So this follows what TON recommends that wallets show since the TEP-2 update (TEPs
 * PR #123; docs.ton.org "addresses workflow"): the non-bounceable form, which keeps funds sent to
 * a not-yet-deployed wallet from bouncing back. Trust Wallet's wallet-core (PR #3925) and
 * BitGo's TON wallets made the same switch to `UQ`. Callers that want `EQ…` can re-encode with
 * `Address.parse(a).toString({ bounceable: true })`; the account is the same.
 * @module
 */
import { KeyholdError } from '@keyhold/protocol';
import { beginCell, Cell, contractAddress } from '@ton/core';

/** The standard wallet contract versions that have a Turnkey address format. */
export type TonWalletVersion = 'V3R2' | 'V4R2' | 'V5R1';

/** The basechain, where wallets live; Turnkey's TON formats name no workchain. */
const TON_WORKCHAIN = 0;

/** Subwallet id of v3/v4 wallets: 698983191 + workchain (the `@ton/ton` and wallet-app default). */
const TON_V3_V4_SUBWALLET_ID = 698983191 + TON_WORKCHAIN;

/** `global_id` of TON mainnet (-3 is testnet); v5 wallet ids are XORed with it. */
const TON_MAINNET_GLOBAL_ID = -239;

/**
 * Wallet id of a v5r1 wallet on mainnet with `@ton/ton`'s default client context: the 32-bit
 * context `1 (client) ‖ int8 workchain 0 ‖ uint8 version 0 (v5r1) ‖ uint15 subwallet 0`
 * = 0x80000000, XOR the network id -239, as `storeWalletIdV5R1` computes it: 2147483409
 * (0x7fffff11, the `wallet_id` explorers show for mainnet W5 wallets).
 */
const TON_V5R1_WALLET_ID = (TON_MAINNET_GLOBAL_ID ^ 0x8000_0000) >>> 0;

/** The user-friendly flags `tonAddress` uses, in `Address#toString` terms. */
const TON_ADDRESS_FLAGS = { urlSafe: true, bounceable: false, testOnly: false } as const;

/**
 * The compiled code of each wallet, as base64 BOCs, byte for byte the ones `@ton/ton` 16.3
 * embeds. Each comment gives the representation hash of the code cell, the value explorers
 * and wallet apps use to recognise the version; `address-ton.test.ts` recomputes them.
 */
const CODE_BOC: Record<TonWalletVersion, string> = {
  // wallet v3r2, ton-blockchain/ton crypto/smartcont/wallet3-code.fc; code hash
  // 84dafa449f98a6987789ba232358072bc0f76dc4524002a5d0918b9a75d2d599.
  V3R2: 'te6cckEBAQEAcQAA3v8AIN0gggFMl7ohggEznLqxn3Gw7UTQ0x/THzHXC//jBOCk8mCDCNcYINMf0x/TH/gjE7vyY+1E0NMf0x/T/9FRMrryoVFEuvKiBPkBVBBV+RDyo/gAkyDXSpbTB9QC+wDo0QGkyMsfyx/L/8ntVBC9ba0=',
  // wallet v4r2, ton-blockchain/wallet-contract func/wallet-v4-code.fc; code hash
  // feb5ff6820e2ff0d9483e7e0d62c817d846789fb4ae580c878866d959dabd5c0.
  V4R2: 'te6ccgECFAEAAtQAART/APSkE/S88sgLAQIBIAIDAgFIBAUE+PKDCNcYINMf0x/THwL4I7vyZO1E0NMf0x/T//QE0VFDuvKhUVG68qIF+QFUEGT5EPKj+AAkpMjLH1JAyx9SMMv/UhD0AMntVPgPAdMHIcAAn2xRkyDXSpbTB9QC+wDoMOAhwAHjACHAAuMAAcADkTDjDQOkyMsfEssfy/8QERITAubQAdDTAyFxsJJfBOAi10nBIJJfBOAC0x8hghBwbHVnvSKCEGRzdHK9sJJfBeAD+kAwIPpEAcjKB8v/ydDtRNCBAUDXIfQEMFyBAQj0Cm+hMbOSXwfgBdM/yCWCEHBsdWe6kjgw4w0DghBkc3RyupJfBuMNBgcCASAICQB4AfoA9AQw+CdvIjBQCqEhvvLgUIIQcGx1Z4MesXCAGFAEywUmzxZY+gIZ9ADLaRfLH1Jgyz8gyYBA+wAGAIpQBIEBCPRZMO1E0IEBQNcgyAHPFvQAye1UAXKwjiOCEGRzdHKDHrFwgBhQBcsFUAPPFiP6AhPLassfyz/JgED7AJJfA+ICASAKCwBZvSQrb2omhAgKBrkPoCGEcNQICEekk30pkQzmkD6f+YN4EoAbeBAUiYcVnzGEAgFYDA0AEbjJftRNDXCx+AA9sp37UTQgQFA1yH0BDACyMoHy//J0AGBAQj0Cm+hMYAIBIA4PABmtznaiaEAga5Drhf/AABmvHfaiaEAQa5DrhY/AAG7SB/oA1NQi+QAFyMoHFcv/ydB3dIAYyMsFywIizxZQBfoCFMtrEszMyXP7AMhAFIEBCPRR8qcCAHCBAQjXGPoA0z/IVCBHgQEI9FHyp4IQbm90ZXB0gBjIywXLAlAGzxZQBPoCFMtqEssfyz/Jc/sAAgBsgQEI1xj6ANM/MFIkgQEI9Fnyp4IQZHN0cnB0gBjIywXLAlAFzxZQA/oCE8tqyx8Syz/Jc/sAAAr0AMntVA==',
  // wallet v5r1 (W5), ton-blockchain/wallet-contract-v5 build/wallet_v5.compiled.json at
  // 4fab977f (published there as hex); code hash
  // 20834b7b72b112147e1b2fb457b84e74d1a30f04f737d4f62a668e9552d2b72f.
  V5R1: 'te6cckECFAEAAoEAART/APSkE/S88sgLAQIBIAINAgFIAwQC3NAg10nBIJFbj2Mg1wsfIIIQZXh0br0hghBzaW50vbCSXwPgghBleHRuuo60gCDXIQHQdNch+kAw+kT4KPpEMFi9kVvg7UTQgQFB1yH0BYMH9A5voTGRMOGAQNchcH/bPOAxINdJgQKAuZEw4HDiEA8CASAFDAIBIAYJAgFuBwgAGa3OdqJoQCDrkOuF/8AAGa8d9qJoQBDrkOuFj8ACAUgKCwAXsyX7UTQcdch1wsfgABGyYvtRNDXCgCAAGb5fD2omhAgKDrkPoCwBAvIOAR4g1wsfghBzaWduuvLgin8PAeaO8O2i7fshgwjXIgKDCNcjIIAg1yHTH9Mf0x/tRNDSANMfINMf0//XCgAK+QFAzPkQmiiUXwrbMeHywIffArNQB7Dy0IRRJbry4IVQNrry4Ib4I7vy0IgikvgA3gGkf8jKAMsfAc8Wye1UIJL4D95w2zzYEAP27aLt+wL0BCFukmwhjkwCIdc5MHCUIccAs44tAdcoIHYeQ2wg10nACPLgkyDXSsAC8uCTINcdBscSwgBSMLDy0InXTNc5MAGk6GwShAe78uCT10rAAPLgk+1V4tIAAcAAkVvg69csCBQgkXCWAdcsCBwS4lIQseMPINdKERITAJYB+kAB+kT4KPpEMFi68uCR7UTQgQFB1xj0BQSdf8jKAEAEgwf0U/Lgi44UA4MH9Fvy4Iwi1woAIW4Bs7Dy0JDiyFADzxYS9ADJ7VQAcjDXLAgkji0h8uCS0gDtRNDSAFETuvLQj1RQMJExnAGBAUDXIdcKAPLgjuLIygBYzxbJ7VST8sCN4gAQk1vbMeHXTNC01sNe',
};

/** Parsed once, on first use, so importing the package does not pay for BOC parsing. */
const codeCells: Partial<Record<TonWalletVersion, Cell>> = {};

/**
 * The code cell of a standard wallet version.
 * @example
 * tonWalletCode('V4R2').hash().toString('hex'); // 'feb5ff68…d5c0'
 */
export function tonWalletCode(version: TonWalletVersion): Cell {
  let cell = codeCells[version];
  if (cell === undefined) {
    cell = Cell.fromBase64(CODE_BOC[version]);
    codeCells[version] = cell;
  }
  return cell;
}

/**
 * The initial data cell of a fresh wallet of `version` for `publicKey` (32 bytes):
 * - V3R2: `seqno:uint32 = 0 ‖ subwallet_id:uint32 ‖ public_key:bits256`;
 * - V4R2: the same, then `plugins:(HashmapE 256 …)` empty (one 0 bit);
 * - V5R1: `is_signature_allowed:bit = 1 ‖ seqno:uint32 = 0 ‖ wallet_id:int32 ‖
 *   public_key:bits256 ‖ extensions:(HashmapE 256 …)` empty.
 * @example
 * tonWalletData('V3R2', pub).bits.length; // 320
 */
export function tonWalletData(version: TonWalletVersion, publicKey: Uint8Array): Cell {
  const key = Buffer.from(publicKey);
  switch (version) {
    case 'V3R2':
      return beginCell()
        .storeUint(0, 32)
        .storeUint(TON_V3_V4_SUBWALLET_ID, 32)
        .storeBuffer(key, 32)
        .endCell();
    case 'V4R2':
      return beginCell()
        .storeUint(0, 32)
        .storeUint(TON_V3_V4_SUBWALLET_ID, 32)
        .storeBuffer(key, 32)
        .storeBit(0)
        .endCell();
    case 'V5R1':
      return beginCell()
        .storeBit(1)
        .storeUint(0, 32)
        .storeUint(TON_V5R1_WALLET_ID, 32)
        .storeBuffer(key, 32)
        .storeBit(0)
        .endCell();
  }
}

/**
 * The mainnet address of the `version` wallet of a 32-byte Ed25519 public key, as
 * non-bounceable url-safe base64 (`UQ…`, 48 characters; see the module comment for why).
 * Refuses a key that is not 32 bytes with INVALID_PUBLIC_KEY (it would still hash to an
 * address, just of no wallet anyone could use).
 * @example
 * // the key of ton-org/ton's wallet specs (they give the bounceable EQDnBF4J…tw4z2Au)
 * tonAddress('V4R2', hexToBytes('5754865e86d0ade1199301bbb0319a25ed6b129c4b0a57f28f62449b3df9c522'));
 * // 'UQDnBF4JTFKHTYjulEJyNd4dstLGH1m51UrLdu01_tw4zz3r'
 */
export function tonAddress(version: TonWalletVersion, publicKey: Uint8Array): string {
  if (!(publicKey instanceof Uint8Array) || publicKey.length !== 32) {
    throw new KeyholdError('INVALID_PUBLIC_KEY', { curve: 'CURVE_ED25519' });
  }
  const init = { code: tonWalletCode(version), data: tonWalletData(version, publicKey) };
  return contractAddress(TON_WORKCHAIN, init).toString(TON_ADDRESS_FLAGS);
}
