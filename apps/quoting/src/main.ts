// The quoting service alone (distributed mode): `npm run start:service -- quoting`.
import 'reflect-metadata';
import { runService } from '@mm/runtime/platform';

void runService('quoting');
