// The virtual-accounts service alone (distributed mode): `npm run start:service -- virtual-accounts`.
import 'reflect-metadata';
import { runService } from '@mm/runtime/platform';

void runService('virtual-accounts');
