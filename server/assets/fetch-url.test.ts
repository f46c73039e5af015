import { describe, expect, it } from 'vitest';
import { isPrivateAddress } from './fetch-url.ts';

describe('isPrivateAddress', () => {
  it.each([
    ['127.0.0.1', true],
    ['10.1.2.3', true],
    ['169.254.169.254', true],
    ['100.64.0.1', true],
    ['8.8.8.8', false],
    ['::1', true],
    ['::', true],
    ['fe80::1', true],
    ['fd00::1', true],
    ['2606:4700::1111', false],
    // IPv6 forms embedding an IPv4 address are judged by that address
    ['::127.0.0.1', true],
    ['::7f00:1', true],
    ['::a9fe:a9fe', true],
    ['::8.8.8.8', false],
    ['::ffff:127.0.0.1', true],
    ['::ffff:8.8.8.8', false],
    ['::ffff:0:7f00:1', true],
    ['64:ff9b::7f00:1', true],
    ['64:ff9b::a00:1', true],
    ['64:ff9b::808:808', false],
    ['64:ff9b:1::a9fe:a9fe', true],
    ['2002:7f00:1::1', true],
    ['2002:c0a8:101::1', true],
    ['2002:808:808::1', false],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', true],
    ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', false],
  ])('%s → %s', (address, expected) => {
    expect(isPrivateAddress(address)).toBe(expected);
  });
});
