import { Module } from '@nestjs/common';
import { CreateWebhookEndpointHandler } from './application/create-webhook-endpoint.js';
import { DeleteWebhookEndpointHandler } from './application/delete-webhook-endpoint.js';
import { DeliveryLog } from './application/delivery-log.js';
import { DisableWebhookEndpointHandler } from './application/disable-webhook-endpoint.js';
import { GetWebhookEndpointHandler, ListWebhookEndpointsHandler } from './application/get-and-list-webhook-endpoints.js';
import { ListDeliveryAttemptsHandler } from './application/list-delivery-attempts.js';
import { ResendEventsHandler } from './application/resend-events.js';
import { RotateWebhookSecretHandler } from './application/rotate-webhook-secret.js';
import { SendTestEventHandler } from './application/send-test-event.js';
import { UpdateWebhookEndpointHandler } from './application/update-webhook-endpoint.js';
import { WebhookDispatcher } from './application/webhook-dispatcher.js';
import { CompleteWebhookReplayHandler } from './application/complete-webhook-replay.js';
import { CancelWebhookReplayHandler, GetWebhookReplayHandler, ListWebhookReplaysHandler, StartWebhookReplayHandler } from './application/webhook-replays.js';
import { WebhookEndpointsController, WebhookTestHelpersController } from './http/webhook-endpoints.controller.js';

/** Webhooks: endpoints (an event-sourced aggregate) and the delivery worker that pushes the `evt_` feed to them. */
@Module({
  controllers: [WebhookEndpointsController, WebhookTestHelpersController],
  providers: [
    DeliveryLog,
    WebhookDispatcher,
    CreateWebhookEndpointHandler,
    UpdateWebhookEndpointHandler,
    DeleteWebhookEndpointHandler,
    RotateWebhookSecretHandler,
    DisableWebhookEndpointHandler,
    SendTestEventHandler,
    GetWebhookEndpointHandler,
    ListWebhookEndpointsHandler,
    ListDeliveryAttemptsHandler,
    ResendEventsHandler,
    StartWebhookReplayHandler,
    CancelWebhookReplayHandler,
    CompleteWebhookReplayHandler,
    GetWebhookReplayHandler,
    ListWebhookReplaysHandler,
  ],
  exports: [WebhookDispatcher, DeliveryLog],
})
export class WebhooksModule {}
