import { firstFlow } from './support/first-flow';
import { START_TIMEOUT_MS, TestPlatform } from './support/test-platform';

describe('smoke: token -> customer (endorsed) -> wallet -> fund -> balance', () => {
  let platform: TestPlatform;
  beforeAll(async () => {
    platform = await TestPlatform.shared();
  }, START_TIMEOUT_MS);
  afterAll(() => platform.stop());

  it('moves through the first flow', () => firstFlow(platform));
});
