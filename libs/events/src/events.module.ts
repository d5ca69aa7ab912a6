import { Module } from '@nestjs/common';
import { GetEventHandler } from './application/get-event.js';
import { ListEventsHandler } from './application/list-events.js';
import { EventsController } from './http/events.controller.js';

@Module({ controllers: [EventsController], providers: [GetEventHandler, ListEventsHandler] })
export class EventsModule {}
