// The deposit-addresses context's application layer (ARCHITECTURE: Inside one service): its command path, its reads and one handler per use case.
import { AttributeSenderHandler } from './attribute-sender.handler';
import { ChainDepositsHandler } from './chain-deposits.handler';
import { CreateDepositAddressHandler } from './create-deposit-address.handler';
import { DepositAddressCommands } from './deposit-address.commands';
import { DepositCommands } from './deposit.commands';
import { DepositAddressQueries } from './deposit-address.queries';
import { DepositAddressesEventStore } from './deposit-addresses.event-store';
import { LoseDestinationHandler } from './lose-destination.handler';
import { ProvisionDepositAddressHandler } from './provision-deposit-address.handler';
import { ReceiveDepositHandler } from './receive-deposit.handler';
import { ReleaseHeldDepositHandler } from './release-held-deposit.handler';
import { SimulateChainDepositHandler } from './simulate-chain-deposit.handler';
import { SimulateCustodianHandler } from './simulate-custodian.handler';
import { UpdateDepositAddressHandler } from './update-deposit-address.handler';

/** The application layer's providers, for the context's Nest module. */

export const DEPOSIT_ADDRESS_APPLICATION = [
  DepositAddressesEventStore,
  DepositAddressCommands,
  DepositCommands,
  DepositAddressQueries,
  CreateDepositAddressHandler,
  ProvisionDepositAddressHandler,
  UpdateDepositAddressHandler,
  SimulateCustodianHandler,
  ReceiveDepositHandler,
  LoseDestinationHandler,
  AttributeSenderHandler,
  ReleaseHeldDepositHandler,
  ChainDepositsHandler,
  SimulateChainDepositHandler,
];
