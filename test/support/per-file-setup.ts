import { stopDynamoDbLocalAfterFile } from './dynamodb-local.js';

stopDynamoDbLocalAfterFile();
