// The deposit-addresses service alone (distributed mode): `npm run start:service -- deposit-addresses`.
import 'reflect-metadata';
import { runService } from '@mm/runtime/platform';

void runService('deposit-addresses');
